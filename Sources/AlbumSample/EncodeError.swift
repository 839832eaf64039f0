/// Why a fixture could not be encoded.
public struct EncodeError: Error, CustomStringConvertible {
    public let description: String
}
