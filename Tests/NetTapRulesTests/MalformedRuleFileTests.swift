import Foundation
import Testing
import NetTapRules

/// One rules file that must be rejected, with the exact message it must get.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let message: String

    init(_ name: String, _ text: String, _ message: String) {
        self.name = name
        self.text = text
        self.message = message
    }

    var testDescription: String { name }
}

/// Every malformed file is rejected with a message naming the file position (line:column), the rule
/// (index, and name when it has one) and the field. Positions point at the offending value, key or
/// character; they were worked out from the text by a separate script, not taken from the loader.
@Suite struct MalformedRuleFileTests {
    static let cases: [MalformedCase] = [
        MalformedCase(
            "trailingCommaInObject",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": \"a.com\",}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:43: rule #0: match: trailing comma before '}'"),
        MalformedCase(
            "trailingCommaInArray",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"block\": {\"status\": 403}},]}\n]}\n",
            "rules.json:2:69: rule #0: actions: trailing comma before ']'"),
        MalformedCase(
            "duplicateKey",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": \"a.com\", \"host\": \"b.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:44: rule #0: match.host: duplicate key \"host\" (first at 2:27)"),
        MalformedCase(
            "commentInRule",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {// all\n}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:27: rule #0: match: comments are not allowed in JSON"),
        MalformedCase(
            "singleQuotedKey",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {'host': \"a.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:27: rule #0: match: strings must use double quotes"),
        MalformedCase(
            "unterminatedString",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r",
            "rules.json:2:12: rule #0: name: unterminated string"),
        MalformedCase(
            "missingColon",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\" \"a.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:34: rule #0: match.host: expected ':' after the key \"host\""),
        MalformedCase(
            "leadingZero",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"port\": 080}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:35: rule #0: match.port: numbers must not have leading zeros"),
        MalformedCase(
            "invalidLiteral",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"enabled\": ture, \"match\": {}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:28: rule #0: enabled: invalid literal ture; expected true, false or null"),
        MalformedCase(
            "invalidEscape",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": \"a\\q.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:38: rule #0: match.host: invalid escape \\q in a string"),
        MalformedCase(
            "controlCharacter",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": \"a\t.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:37: rule #0: match.host: unescaped control character U+0009 in a string"),
        MalformedCase(
            "textAfterDocument",
            "{\"version\": 1, \"rules\": []}\nx\n",
            "rules.json:2:1: unexpected text after the JSON value"),
        MalformedCase(
            "documentNotObject",
            "[]\n",
            "rules.json:1:1: the rules file must be a JSON object, found array"),
        MalformedCase(
            "missingVersion",
            "{\"rules\": []}\n",
            "rules.json:1:1: missing \"version\" (this NetTap reads version 1)"),
        MalformedCase(
            "unsupportedVersion",
            "{\"version\": 2, \"rules\": []}\n",
            "rules.json:1:13: version: unsupported version 2; this NetTap reads version 1"),
        MalformedCase(
            "unknownTopLevelKey",
            "{\"version\": 1, \"rule\": []}\n",
            "rules.json:1:16: unknown key \"rule\" (did you mean \"rules\"?); expected one of: version, seed, comment, rules"),
        MalformedCase(
            "rulesNotArray",
            "{\"version\": 1, \"rules\": {}}\n",
            "rules.json:1:25: rules: expected an array of rules, found object"),
        MalformedCase(
            "unknownMatchKey",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"hots\": \"a.com\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:27: rule #0 \"r\": match: unknown key \"hots\" (did you mean \"host\"?); expected one of: scheme, host, port, method, path, pathRegex, query, headers"),
        MalformedCase(
            "missingMatch",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:3: rule #0 \"r\": missing \"match\" (use {} to match every request)"),
        MalformedCase(
            "emptyActions",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": []}\n]}\n",
            "rules.json:2:41: rule #0 \"r\": actions: a rule needs at least one action"),
        MalformedCase(
            "portZero",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"port\": 0}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:35: rule #0 \"r\": match.port: must be an integer from 1 to 65535, found 0"),
        MalformedCase(
            "portAsString",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"port\": [443, \"80\"]}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:41: rule #0 \"r\": match.port[1]: expected an integer, found string \"80\""),
        MalformedCase(
            "badHostPattern",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"host\": [\"a.com\", \"api.*.com\"]}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:45: rule #0 \"r\": match.host: invalid host pattern \"api.*.com\": '*' is allowed only as a leading \"*.\""),
        MalformedCase(
            "badPathGlob",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"path\": \"/a/**/b\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:35: rule #0 \"r\": match.path: invalid path pattern \"/a/**/b\": '**' is allowed only as the last segment"),
        MalformedCase(
            "badPathRegex",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"pathRegex\": \"(\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:40: rule #0 \"r\": match.pathRegex: invalid regular expression \"(\""),
        MalformedCase(
            "pathAndPathRegex",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"path\": \"/a\", \"pathRegex\": \"^/a\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:41: rule #0 \"r\": match.pathRegex: use either path or pathRegex, not both"),
        MalformedCase(
            "queryMatcherNumber",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"query\": {\"page\": 2}}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:45: rule #0 \"r\": match.query.page: expected true (present), false (absent), a string (equals) or {\"regex\": \"...\"}, found number 2"),
        MalformedCase(
            "headerRegexInvalid",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"headers\": {\"User-Agent\": {\"regex\": \"[a-\"}}}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:63: rule #0 \"r\": match.headers.User-Agent.regex: invalid regular expression \"[a-\""),
        MalformedCase(
            "invalidMethod",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {\"method\": \"GE T\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:37: rule #0 \"r\": match.method: invalid method \"GE T\""),
        MalformedCase(
            "unknownAction",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mok\": {}}]}\n]}\n",
            "rules.json:2:43: rule #0 \"r\": actions[0]: unknown action \"mok\" (did you mean \"mock\"?); expected one of: mock, mapLocal, rewrite, block, headers, throttle, proxy, record, replay"),
        MalformedCase(
            "actionWithTwoKeys",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {}, \"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:42: rule #0 \"r\": actions[0]: an action is an object with exactly one key naming the action, found 2 keys (mock, block)"),
        MalformedCase(
            "twoTerminalActions",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {}}, {\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:56: rule #0 \"r\": actions[1]: a rule can end a request only once, and actions[0] (mock) already does; put block in a rule of its own"),
        MalformedCase(
            "mockStatusOutOfRange",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"status\": 700}}]}\n]}\n",
            "rules.json:2:62: rule #0 \"r\": actions[0].mock.status: must be an integer from 100 to 599, found 700"),
        MalformedCase(
            "mockTwoBodies",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"text\": \"a\", \"json\": {}}}]}\n]}\n",
            "rules.json:2:65: rule #0 \"r\": actions[0].mock.json: use only one body: text, json, base64 or file (found text and json)"),
        MalformedCase(
            "mockInvalidBase64",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"base64\": \"***\"}}]}\n]}\n",
            "rules.json:2:62: rule #0 \"r\": actions[0].mock.base64: invalid base64"),
        MalformedCase(
            "mockMissingFile",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"file\": \"missing.json\"}}]}\n]}\n",
            "rules.json:2:60: rule #0 \"r\": actions[0].mock.file: cannot read \"missing.json\" (BASE/missing.json)"),
        MalformedCase(
            "mockNegativeDelay",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"delay\": -1}}]}\n]}\n",
            "rules.json:2:61: rule #0 \"r\": actions[0].mock.delay: must be a number from 0 to 3600, found -1"),
        MalformedCase(
            "mockBadHeaderName",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mock\": {\"headers\": {\"Bad Header\": \"x\"}}}]}\n]}\n",
            "rules.json:2:64: rule #0 \"r\": actions[0].mock.headers: invalid header name \"Bad Header\""),
        MalformedCase(
            "mapLocalWithoutSource",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mapLocal\": {\"status\": 200}}]}\n]}\n",
            "rules.json:2:55: rule #0 \"r\": actions[0].mapLocal: mapLocal needs \"file\" or \"directory\""),
        MalformedCase(
            "mapLocalPrefixWithFile",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"mapLocal\": {\"file\": \"a.json\", \"pathPrefix\": \"/a\"}}]}\n]}\n",
            "rules.json:2:74: rule #0 \"r\": actions[0].mapLocal.pathPrefix: pathPrefix applies only to a directory"),
        MalformedCase(
            "rewriteEmpty",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"rewrite\": {}}]}\n]}\n",
            "rules.json:2:54: rule #0 \"r\": actions[0].rewrite: rewrite needs at least one of: scheme, host, port, path, query, hostToIP"),
        MalformedCase(
            "rewriteSchemeFTP",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"rewrite\": {\"scheme\": \"ftp\"}}]}\n]}\n",
            "rules.json:2:65: rule #0 \"r\": actions[0].rewrite.scheme: must be \"http\" or \"https\", found \"ftp\""),
        MalformedCase(
            "rewriteBadIP",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"rewrite\": {\"hostToIP\": \"10.0.0\"}}]}\n]}\n",
            "rules.json:2:67: rule #0 \"r\": actions[0].rewrite.hostToIP: \"10.0.0\" is not an IPv4 or IPv6 address"),
        MalformedCase(
            "rewriteMissingGroup",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"rewrite\": {\"path\": {\"regex\": \"^/v1/(.*)$\", \"replace\": \"/v2/$1/$2\"}}}]}\n]}\n",
            "rules.json:2:98: rule #0 \"r\": actions[0].rewrite.path.replace: the replacement uses $2 but the expression has 1 capture group"),
        MalformedCase(
            "blockUnknownError",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"block\": {\"error\": \"timeout\"}}]}\n]}\n",
            "rules.json:2:62: rule #0 \"r\": actions[0].block.error: unknown error \"timeout\" (did you mean \"timedOut\"?); expected a number or one of: unknown, cancelled, badURL, timedOut, unsupportedURL, cannotFindHost, cannotConnectToHost, networkConnectionLost, dnsLookupFailed, httpTooManyRedirects, resourceUnavailable, notConnectedToInternet, redirectToNonExistentLocation, badServerResponse, userCancelledAuthentication, userAuthenticationRequired, zeroByteResource, cannotDecodeRawData, cannotDecodeContentData, cannotParseResponse, internationalRoamingOff, callIsActive, dataNotAllowed, requestBodyStreamExhausted, appTransportSecurityRequiresSecureConnection, secureConnectionFailed, serverCertificateHasBadDate, serverCertificateUntrusted, serverCertificateHasUnknownRoot, serverCertificateNotYetValid, clientCertificateRejected, clientCertificateRequired, cannotLoadFromNetwork"),
        MalformedCase(
            "blockErrorAndStatus",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"block\": {\"error\": \"timedOut\", \"status\": 403}}]}\n]}\n",
            "rules.json:2:74: rule #0 \"r\": actions[0].block: use either error or status, not both"),
        MalformedCase(
            "throttleUnknownPreset",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"throttle\": {\"preset\": \"4g\"}}]}\n]}\n",
            "rules.json:2:66: rule #0 \"r\": actions[0].throttle.preset: unknown preset \"4g\" (did you mean \"3g\"?); expected one of: gprs, edge, 3g, lte, wifi-lossy, very-bad"),
        MalformedCase(
            "throttleProbabilityAboveOne",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"throttle\": {\"failureProbability\": 1.5}}]}\n]}\n",
            "rules.json:2:78: rule #0 \"r\": actions[0].throttle.failureProbability: must be a number from 0 to 1, found 1.5"),
        MalformedCase(
            "headersSetWithList",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"headers\": {\"request\": {\"set\": {\"X-A\": [\"1\", \"2\"]}}}}]}\n]}\n",
            "rules.json:2:82: rule #0 \"r\": actions[0].headers.request.set.X-A: expected a string, found array"),
        MalformedCase(
            "headersEmpty",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"headers\": {}}]}\n]}\n",
            "rules.json:2:54: rule #0 \"r\": actions[0].headers: headers needs \"request\" or \"response\" edits"),
        MalformedCase(
            "replayUnknownBodyMatching",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"replay\": {\"har\": \"s.har\", \"matchBody\": \"yaml\"}}]}\n]}\n",
            "rules.json:2:83: rule #0 \"r\": actions[0].replay.matchBody: unknown matchBody \"yaml\"; expected one of: exact, json, form, none"),
        MalformedCase(
            "replayUnknownMode",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"replay\": {\"har\": \"s.har\", \"mode\": \"strictly\"}}]}\n]}\n",
            "rules.json:2:78: rule #0 \"r\": actions[0].replay.mode: unknown mode \"strictly\" (did you mean \"strict\"?); expected one of: strict, passthrough, recordMissing"),
        MalformedCase(
            "replayMissingHar",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"replay\": {\"mode\": \"strict\"}}]}\n]}\n",
            "rules.json:2:53: rule #0 \"r\": actions[0].replay: missing \"har\""),
        MalformedCase(
            "proxyUnknownType",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"match\": {}, \"actions\": [{\"proxy\": {\"host\": \"p\", \"port\": 8080, \"type\": \"socks\"}}]}\n]}\n",
            "rules.json:2:88: rule #0 \"r\": actions[0].proxy.type: must be \"http\" or \"https\", found \"socks\""),
        MalformedCase(
            "enabledNotBool",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"r\", \"enabled\": \"yes\", \"match\": {}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:28: rule #0 \"r\": enabled: expected true or false, found string \"yes\""),
        MalformedCase(
            "emptyName",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"\", \"match\": {}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:2:12: rule #0: name: must not be empty"),
        MalformedCase(
            "secondUnnamedRule",
            "{\"version\": 1, \"rules\": [\n  {\"name\": \"first\", \"match\": {}, \"actions\": [{\"block\": {\"status\": 403}}]},\n  {\"match\": {\"scheme\": \"ht tp\"}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}\n",
            "rules.json:3:24: rule #1: match.scheme: invalid scheme \"ht tp\""),
    ]

    @Test func thereAreAtLeastThirtyCases() {
        #expect(Self.cases.count >= 30)
        #expect(Set(Self.cases.map(\.name)).count == Self.cases.count)
    }

    @Test(arguments: cases) func rejectedWithExactMessage(_ malformed: MalformedCase) throws {
        let directory = try TemporaryDirectory()
        let expected = malformed.message.replacingOccurrences(of: "BASE", with: directory.url.standardizedFileURL.path)
        do {
            _ = try RuleSet(
                jsonData: Data(malformed.text.utf8), baseDirectory: directory.url, fileName: "rules.json",
                options: RuleLoadOptions(platformSupportsProxyRules: true))
            Issue.record("\(malformed.name) was accepted")
        } catch {
            #expect(error.description == expected)
            #expect(error.position != nil)
        }
    }

    @Test func errorsCarryTheirPartsSeparately() throws {
        let text = "{\"version\": 1, \"rules\": [\n  {\"name\": \"users\", \"match\": {\"port\": 0}, \"actions\": [{\"block\": {\"status\": 403}}]}\n]}"
        do {
            _ = try RuleSet(jsonData: Data(text.utf8), baseDirectory: URL(fileURLWithPath: "/"))
            Issue.record("accepted")
        } catch {
            #expect(error.file == nil)
            #expect(error.position == SourcePosition(line: 2, column: 39))
            #expect(error.ruleIndex == 0)
            #expect(error.ruleName == "users")
            #expect(error.field == "match.port")
            #expect(error.description == "2:39: rule #0 \"users\": match.port: must be an integer from 1 to 65535, found 0")
        }
    }

    @Test func loadFromAMissingFileNamesIt() {
        let url = URL(fileURLWithPath: "/nonexistent-nettap-dir/rules.json")
        do {
            _ = try RuleSet.load(contentsOf: url)
            Issue.record("accepted")
        } catch {
            #expect(error.file == "/nonexistent-nettap-dir/rules.json")
            #expect(error.description.hasPrefix("/nonexistent-nettap-dir/rules.json: cannot read the rules file"))
        }
    }
}
