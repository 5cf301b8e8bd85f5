import Foundation
import NetTapTestSupport
import Testing

@Suite struct TemporaryDirectoryTests {
    @Test func isFreshAndRemovedWithItsContents() throws {
        var path = ""
        do {
            let directory = try TemporaryDirectory()
            path = directory.path
            #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty)
            try Data("x".utf8).write(to: directory.file("nested.txt"))
            #expect(FileManager.default.fileExists(atPath: directory.file("nested.txt").path))
            #expect(try TemporaryDirectory().path != path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
