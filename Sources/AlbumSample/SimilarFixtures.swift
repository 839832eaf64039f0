/// Known answers for similar photos (`duplicates/similar/`): one scene's photo and what people
/// make of it (re-encoded, resized, cropped, turned by its EXIF orientation, a second shot with
/// the camera turned a little), and three pictures of other scenes. Each is a camera JPEG of its
/// own capture time, a minute apart in this order.
public enum SimilarFixtures {
    /// The names of the photos of the one scene, oldest first.
    public static let alike = ["original.jpg", "requality.jpg", "resized.jpg", "cropped.jpg", "turned.jpg", "shifted.jpg"]
    /// The names of the other pictures.
    public static let others = ["other1.jpg", "other2.jpg", "other3.jpg"]
    /// The stored orientation of each (1 but `turned.jpg`).
    public static func orientation(_ name: String) -> Int { name == "turned.jpg" ? 6 : 1 }

    /// The capture time of the `k`th file, `YYYY:MM:DD HH:MM:SS`.
    public static func date(_ k: Int) -> String { "2024:05:17 10:\(k < 10 ? "0" : "")\(k):00" }

    /// Every file, in the order of `alike` then `others`.
    public static func files() throws(EncodeError) -> [(name: String, bytes: [UInt8])] {
        let scene = SampleImage.scene(width: 800, height: 600, seed: 7)
        let pictures: [SampleImage] = [
            scene, scene, scene.resized(width: 640, height: 480), scene.cropped(by: 0.05), scene.stored(forOrientation: 6),
            SampleImage.scene(width: 800, height: 600, seed: 7, shift: 0.02),
            SampleImage.scene(width: 800, height: 600, seed: 8), SampleImage.scene(width: 800, height: 600, seed: 9),
            SampleImage.marker(width: 800, height: 600),
        ]
        let qualities: [Int32] = [92, 35, 85, 85, 85, 85, 85, 85, 85]
        var out: [(name: String, bytes: [UInt8])] = []
        for (k, name) in (alike + others).enumerated() {
            var exif = SampleExif.camera("Canon", "EOS R5", ExifTime(date(k)), orientation: UInt16(orientation(name)))
            if name == "turned.jpg" {
                // Its EXIF thumbnail, as cameras write one: what its hash is made of.
                exif.thumbnail = try SampleJPEG.jpeg(scene.resized(width: 160, height: 120).stored(forOrientation: 6), quality: 80)
            }
            out.append((name, SampleJPEG.insertingAPP1(exif.payload(), into: try SampleJPEG.jpeg(pictures[k], quality: qualities[k]))))
        }
        return out
    }
}
