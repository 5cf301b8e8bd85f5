import Foundation
import Testing
@testable import NetTapExport

/// Quoted words survive real shells byte for byte: each value goes through `sh -c 'printf %s WORD'`.
@Suite struct ShellQuoteTests {
    static let nasty = [
        "plain-token_1.0",
        "",
        "it's",
        "''",
        "\"double\" quotes",
        "$HOME ${PATH} $(id -u) `uname`",
        "back\\slash \\n \\' \\\\",
        "line one\nline two\r\n\ttab",
        "!history !! ^caret ~tilde *glob? [x] {a,b} #hash ;semi &amp |pipe >out <in",
        "unicode: héllo ✓ 日本語 🚀 \u{200B}zero-width",
        "-n",
        "--data-raw @file",
        "%s %d %% printf directives",
    ]

    static let shells = ["/bin/sh", "/usr/bin/dash", "/usr/bin/bash"].filter { FileManager.default.isExecutableFile(atPath: $0) }

    @Test func thereIsAShellToTestWith() {
        #expect(!Self.shells.isEmpty)
    }

    @Test(arguments: shells)
    func quotedWordsComeBackUnchanged(shell: String) throws {
        for value in Self.nasty {
            let result = try ChildProcess.run(shell, ["-c", "printf '%s' " + ShellQuote.quote(value)])
            #expect(result.status == 0, "\(shell): \(result.stderrText)")
            #expect(result.stdout == Data(value.utf8), "\(shell) changed \(value.debugDescription)")
        }
    }

    @Test(arguments: shells)
    func printfFormatsReproduceEveryByte(shell: String) throws {
        let samples: [Data] = [
            Data((0...255).map { UInt8($0) }),
            Data("100% \\done\\ it's\n".utf8),
            Data([0, 0, 0x27, 0x25, 0x5C, 0x30, 0x31]),
            Data(),
        ]
        for bytes in samples {
            let result = try ChildProcess.run(shell, ["-c", "printf " + ShellQuote.printfFormat(bytes)])
            #expect(result.status == 0, "\(shell): \(result.stderrText)")
            #expect(result.stdout == bytes, "\(shell) printed \(Array(result.stdout)) for \(Array(bytes))")
        }
    }

    @Test func plainWordsStayUnquotedAndOthersAreQuoted() {
        #expect(ShellQuote.quote("https://a.example/b?c=d,e") == "'https://a.example/b?c=d,e'")
        #expect(ShellQuote.quote("application/json") == "application/json")
        #expect(ShellQuote.quote("it's") == #"'it'\''s'"#)
        #expect(ShellQuote.quote("") == "''")
    }
}
