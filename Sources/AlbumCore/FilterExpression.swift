/// One component of a `filter/` path as written: terms combined with `any(…)`, `all(…)` and
/// `not(…)` (docs/filters.md has the grammar).
///
/// Syntax only: whether a term is known and its value makes sense is `FilterTerms`' to say.
public indirect enum FilterExpression: Sendable, Equatable {
    case term(FilterCondition)
    case not(FilterExpression)
    case any([FilterExpression])
    case all([FilterExpression])

    /// The canonical text: names in lower case, no blanks around commas and parentheses, and a
    /// value's `%`, `,`, `(` and `)` escaped, so that it parses back to the same expression.
    public var description: String {
        switch self {
        case .term(let c): return c.description
        case .not(let e): return "not(\(e.description))"
        case .any(let list): return "any(\(list.map(\.description).joined(separator: ",")))"
        case .all(let list): return "all(\(list.map(\.description).joined(separator: ",")))"
        }
    }

    /// Every term, in the order written.
    public var conditions: [FilterCondition] {
        switch self {
        case .term(let c): return [c]
        case .not(let e): return e.conditions
        case .any(let list), .all(let list): return list.flatMap(\.conditions)
        }
    }
}

/// How a term compares its value (`rating>=4`, `year=2024`).
public enum FilterOperator: String, Sendable, CaseIterable {
    // (Longest first: the parser takes the first that matches.)
    case atLeast = ">="
    case atMost = "<="
    case equal = "="
    case above = ">"
    case below = "<"
}

/// One term as written: its name, and its operator and value when it takes one.
public struct FilterCondition: Sendable, Equatable {
    public let name: String
    public let comparison: (operator: FilterOperator, value: String)?

    public init(name: String, _ op: FilterOperator? = nil, _ value: String = "") {
        self.name = name
        comparison = op.map { ($0, value) }
    }

    public static func == (a: FilterCondition, b: FilterCondition) -> Bool {
        a.name == b.name && a.comparison?.operator == b.comparison?.operator && a.comparison?.value == b.comparison?.value
    }

    public var description: String {
        guard let (op, value) = comparison else { return name }
        return name + op.rawValue + FilterSyntax.escaped(value)
    }
}

/// Why a component is no expression, and what was meant where a rule finds it.
public struct FilterError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// The parser of one path component (`FilterExpression`), by recursive descent.
public enum FilterSyntax {
    /// The three combining words; a term cannot be named so.
    public static let functions = ["any", "all", "not"]
    /// Characters a value holds only escaped (`+` anywhere; the others inside `any(…)`, `all(…)`
    /// and `not(…)`), and how they are written.
    static let escapedCharacters: [Character: String] = ["%": "%25", ",": "%2C", "(": "%28", ")": "%29", "/": "%2F", "+": "%2B"]

    /// The expression a component writes. Outside a function a value runs to the next `+` or the
    /// component's end, so `camera=Foo (Bar), Inc.` needs no escapes; inside one `,` and `)` end it too.
    public static func parse(_ text: String) -> Result<FilterExpression, FilterError> {
        var p = Parser(Array(text))
        do throws(FilterError) {
            let e = try p.expression(topLevel: true)
            p.skipBlanks()
            guard p.atEnd else { throw FilterError("unexpected \"\(p.rest)\" after \"\(String(p.chars[..<p.at]))\"") }
            return .success(e)
        } catch {
            return .failure(error)
        }
    }

    /// `value` with the characters a value cannot hold as they are written `%XX`.
    static func escaped(_ value: String) -> String {
        String(value.flatMap { escapedCharacters[$0].map(Array.init) ?? [$0] })
    }

    /// `value` with `%XX` escapes of ASCII characters decoded (a `%` not followed by two hex
    /// digits stays as it is).
    static func unescaped(_ value: [Character]) -> String {
        var out = "", k = 0
        while k < value.count {
            if value[k] == "%", k + 2 < value.count,
               let hi = value[k + 1].hexDigitValue, let lo = value[k + 2].hexDigitValue, hi < 8 {
                out.append(Character(Unicode.Scalar(UInt8(hi * 16 + lo))))
                k += 3
            } else {
                out.append(value[k])
                k += 1
            }
        }
        return out
    }
}

/// The state of one parse: the component's characters and the position reached.
struct Parser {
    let chars: [Character]
    var at = 0

    init(_ chars: [Character]) { self.chars = chars }

    var atEnd: Bool { at >= chars.count }
    var rest: String { String(chars[at...]) }

    mutating func skipBlanks() { while at < chars.count, chars[at] == " " { at += 1 } }

    /// `unary { "+" unary }`: two or more are `any(…)` of them.
    mutating func expression(topLevel: Bool) throws(FilterError) -> FilterExpression {
        var list = [try unary(topLevel: topLevel)]
        skipBlanks()
        while at < chars.count, chars[at] == "+" {
            at += 1
            list.append(try unary(topLevel: topLevel))
            skipBlanks()
        }
        return list.count == 1 ? list[0] : .any(list)
    }

    /// `"not-" unary | primary`.
    mutating func unary(topLevel: Bool) throws(FilterError) -> FilterExpression {
        skipBlanks()
        let prefix = Array("not-")
        if at + prefix.count < chars.count, chars[at..<(at + prefix.count)].map({ Character($0.lowercased()) }) == prefix {
            at += prefix.count
            return .not(try unary(topLevel: topLevel))
        }
        return try primary(topLevel: topLevel)
    }

    /// `function | term`.
    mutating func primary(topLevel: Bool) throws(FilterError) -> FilterExpression {
        skipBlanks()
        let name = word()
        guard !name.isEmpty else {
            if at < chars.count, chars[at] == "!" { throw FilterError("\"!\" is no operator: write not-X or not(X)") }
            throw FilterError(atEnd ? "an expression is missing at the end" : "a term is missing before \"\(rest)\"")
        }
        let lower = name.lowercased()
        skipBlanks()
        if FilterSyntax.functions.contains(lower), at < chars.count, chars[at] == "(" {
            at += 1
            let list = try arguments(of: lower)
            switch lower {
            case "not":
                guard list.count == 1 else { throw FilterError("not(…) takes one expression, not \(list.count)") }
                return .not(list[0])
            case "any": return .any(list)
            default: return .all(list)
            }
        }
        if at < chars.count, chars[at] == "(" {
            throw FilterError("no function \"\(name)\": any(…), all(…) and not(…) combine terms"
                + FilterSuggestions.didYouMean(lower, among: FilterSyntax.functions))
        }
        guard let op = comparison() else { return .term(FilterCondition(name: lower)) }
        return .term(FilterCondition(name: lower, op, value(topLevel: topLevel)))
    }

    /// The expressions of a function up to its `)`.
    mutating func arguments(of function: String) throws(FilterError) -> [FilterExpression] {
        var list: [FilterExpression] = []
        while true {
            list.append(try expression(topLevel: false))
            skipBlanks()
            guard at < chars.count else { throw FilterError("\(function)( is not closed: a \")\" is missing") }
            at += 1
            if chars[at - 1] == ")" { return list }
            guard chars[at - 1] == "," else { throw FilterError("a \",\" or \")\" is missing before \"\(String(chars[(at - 1)...]))\"") }
        }
    }

    /// A name: letters, digits and `-`.
    mutating func word() -> String {
        let start = at
        while at < chars.count, chars[at].isLetter || chars[at].isNumber || chars[at] == "-" || chars[at] == "_" { at += 1 }
        return String(chars[start..<at])
    }

    mutating func comparison() -> FilterOperator? {
        for op in FilterOperator.allCases {
            let written = Array(op.rawValue)
            if at + written.count <= chars.count, Array(chars[at..<(at + written.count)]) == written {
                at += written.count
                return op
            }
        }
        return nil
    }

    /// A value, blanks around it dropped: up to the next `+`, and inside a function up to the
    /// next `,` or `)` too.
    mutating func value(topLevel: Bool) -> String {
        let start = at
        while at < chars.count, chars[at] != "+", topLevel || (chars[at] != "," && chars[at] != ")") { at += 1 }
        var slice = chars[start..<at]
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return FilterSyntax.unescaped(Array(slice))
    }
}
