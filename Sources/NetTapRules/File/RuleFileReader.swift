import Foundation
import NetTapCore

/// Turns a parsed rules file into rules, checking every value and naming what is wrong and where.
///
/// One reader per rule: it carries the rule's index and name into every error it makes.
struct RuleFileReader {
    let file: String?
    let baseDirectory: URL
    let options: RuleLoadOptions
    var ruleIndex: Int?
    var ruleName: String?

    // MARK: Document

    func readRuleSet(_ root: JSONNode) throws(RuleFileError) -> RuleSet {
        guard case .object = root.value else {
            throw error(root.position, "", "the rules file must be a JSON object, found \(root.summary)")
        }
        let top = try object(root, "", keys: ["version", "seed", "comment", "rules"])
        let version = try top.required("version", in: self, hint: " (this NetTap reads version 1)")
        let versionNumber = try integer(version.value, "version", in: Int.min...Int.max)
        guard versionNumber == 1 else {
            throw error(version.value.position, "version", "unsupported version \(versionNumber); this NetTap reads version 1")
        }
        if let comment = top["comment"] { _ = try string(comment.value, "comment") }
        var seed: UInt64 = 0
        if let member = top["seed"] {
            seed = UInt64(try integer(member.value, "seed", in: 0...Int.max))
        }
        let rulesMember = try top.required("rules", in: self)
        guard case .array(let elements) = rulesMember.value.value else {
            throw error(rulesMember.value.position, "rules", "expected an array of rules, found \(rulesMember.value.summary)")
        }
        var rules: [Rule] = []
        for (index, element) in elements.enumerated() {
            var reader = self
            reader.ruleIndex = index
            reader.ruleName = nil
            if case .string(let name) = element.member("name")?.value.value, !name.isEmpty {
                reader.ruleName = name
            }
            rules.append(try reader.readRule(element))
        }
        return RuleSet(rules: rules, seed: seed)
    }

    private func readRule(_ node: JSONNode) throws(RuleFileError) -> Rule {
        let fields = try object(node, "", keys: ["name", "comment", "enabled", "match", "actions"])
        var name: String?
        if let member = fields["name"] { name = try nonEmptyString(member.value, "name") }
        if let comment = fields["comment"] { _ = try string(comment.value, "comment") }
        var enabled = true
        if let member = fields["enabled"] { enabled = try bool(member.value, "enabled") }
        let matchMember = try fields.required("match", in: self, hint: " (use {} to match every request)")
        let match = try readMatch(matchMember.value, "match")
        let actionsMember = try fields.required("actions", in: self)
        guard case .array(let elements) = actionsMember.value.value else {
            throw error(actionsMember.value.position, "actions", "expected an array of actions, found \(actionsMember.value.summary)")
        }
        guard !elements.isEmpty else {
            throw error(actionsMember.value.position, "actions", "a rule needs at least one action")
        }
        var actions: [RuleAction] = []
        var terminalField: String?
        for (index, element) in elements.enumerated() {
            let field = "actions[\(index)]"
            let action = try readAction(element, field)
            if action.isTerminal {
                if let terminalField {
                    throw error(
                        element.position, field,
                        "a rule can end a request only once, and \(terminalField) already does; put \(action.name) in a rule of its own")
                }
                terminalField = "\(field) (\(action.name))"
            }
            actions.append(action)
        }
        return Rule(name: name, isEnabled: enabled, match: match, actions: actions)
    }

    // MARK: Match

    private func readMatch(_ node: JSONNode, _ field: String) throws(RuleFileError) -> RuleMatch {
        let fields = try object(
            node, field, keys: ["scheme", "host", "port", "method", "path", "pathRegex", "query", "headers"])
        var match = RuleMatch()
        if let member = fields["scheme"] {
            for (scheme, position) in try strings(member.value, fields.path("scheme")) {
                let lowered = scheme.lowercased()
                guard !lowered.isEmpty, lowered.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
                    throw error(position, fields.path("scheme"), "invalid scheme \"\(scheme)\"")
                }
                match.schemes.append(lowered)
            }
        }
        if let member = fields["host"] {
            var hosts: [HostPattern] = []
            var any = false
            for (text, position) in try strings(member.value, fields.path("host")) {
                if text == "*" {
                    any = true
                    continue
                }
                do {
                    hosts.append(try HostPattern(text))
                } catch {
                    throw self.error(position, fields.path("host"), "invalid host pattern \"\(text)\": \(error.reason)")
                }
            }
            match.hosts = any ? [] : hosts
        }
        if let member = fields["port"] {
            match.ports = try integers(member.value, fields.path("port"), in: 1...65535)
        }
        if let member = fields["method"] {
            for (method, position) in try strings(member.value, fields.path("method")) {
                guard Self.isToken(method) else {
                    throw error(position, fields.path("method"), "invalid method \"\(method)\"")
                }
                match.methods.append(method.uppercased())
            }
        }
        if let member = fields["path"] {
            let text = try string(member.value, fields.path("path"))
            do {
                match.path = .glob(try PathGlob(text))
            } catch {
                throw self.error(member.value.position, fields.path("path"), "invalid path pattern \"\(text)\": \(error.reason)")
            }
        }
        if let member = fields["pathRegex"] {
            if fields["path"] != nil {
                throw error(member.keyPosition, fields.path("pathRegex"), "use either path or pathRegex, not both")
            }
            match.path = .regex(try regex(member.value, fields.path("pathRegex")))
        }
        if let member = fields["query"] {
            match.queryItems = try valueMatchers(member.value, fields.path("query"))
        }
        if let member = fields["headers"] {
            match.headers = try valueMatchers(member.value, fields.path("headers"))
            for (matcher, member) in zip(match.headers, objectMembers(member.value)) where !Self.isToken(matcher.name) {
                throw error(member.keyPosition, fields.path("headers"), "invalid header name \"\(matcher.name)\"")
            }
        }
        return match
    }

    private func valueMatchers(_ node: JSONNode, _ field: String) throws(RuleFileError) -> [NamedValueMatcher] {
        guard case .object(let members) = node.value else {
            throw error(node.position, field, "expected an object of names, found \(node.summary)")
        }
        var result: [NamedValueMatcher] = []
        for member in members {
            let path = field + "." + member.key
            let matcher: ValueMatcher
            switch member.value.value {
            case .bool(let present):
                matcher = present ? .present : .absent
            case .string(let value):
                matcher = .equals(value)
            case .object:
                let inner = try object(member.value, path, keys: ["regex"])
                let pattern = try inner.required("regex", in: self)
                matcher = .regex(try regex(pattern.value, path + ".regex"))
            default:
                throw error(
                    member.value.position, path,
                    "expected true (present), false (absent), a string (equals) or {\"regex\": \"...\"}, found \(member.value.summary)")
            }
            result.append(NamedValueMatcher(name: member.key, matcher: matcher))
        }
        return result
    }

    // MARK: Actions

    private func readAction(_ node: JSONNode, _ field: String) throws(RuleFileError) -> RuleAction {
        guard case .object(let members) = node.value else {
            throw error(node.position, field, "expected an action object such as {\"mock\": {...}}, found \(node.summary)")
        }
        guard members.count == 1, let member = members.first else {
            let found = members.isEmpty ? "none" : members.map(\.key).joined(separator: ", ")
            throw error(
                node.position, field,
                "an action is an object with exactly one key naming the action, found \(members.count) keys (\(found))")
        }
        let path = field + "." + member.key
        let value = member.value
        switch member.key {
        case "mock": return .mock(try readMock(value, path))
        case "mapLocal": return .mapLocal(try readMapLocal(value, path))
        case "rewrite": return .rewrite(try readRewrite(value, path))
        case "block": return .block(try readBlock(value, path))
        case "headers": return .headers(try readHeaderAction(value, path))
        case "throttle": return .throttle(try readThrottle(value, path))
        case "proxy":
            guard options.platformSupportsProxyRules else {
                throw error(value.position, path, RulesPlatform.proxyUnsupportedMessage)
            }
            return .proxy(try readProxy(value, path))
        case "record":
            let fields = try object(value, path, keys: ["har"])
            return .record(RecordTarget(harFile: try fileURL(try fields.required("har", in: self), fields.path("har"))))
        case "replay": return .replay(try readReplay(value, path))
        default:
            throw error(
                member.keyPosition, field,
                "unknown action \"\(member.key)\"\(Self.suggestion(member.key, RuleAction.names)); expected one of: "
                    + RuleAction.names.joined(separator: ", "))
        }
    }

    private func readMock(_ node: JSONNode, _ field: String) throws(RuleFileError) -> MockAction {
        let fields = try object(node, field, keys: ["status", "headers", "text", "json", "base64", "file", "delay"])
        var response = RuleResponse(statusCode: 200)
        if let member = fields["status"] { response.statusCode = try integer(member.value, fields.path("status"), in: 100...599) }
        if let member = fields["headers"] { response.headers = try headerFields(member.value, fields.path("headers")) }
        if let member = fields["delay"] { response.delay = try number(member.value, fields.path("delay"), in: 0...3600) }
        let bodies = ["text", "json", "base64", "file"].compactMap { fields[$0] }
        if bodies.count > 1 {
            throw error(
                bodies[1].keyPosition, fields.path(bodies[1].key),
                "use only one body: text, json, base64 or file (found \(bodies.map(\.key).joined(separator: " and ")))")
        }
        var source = "empty"
        var contentType: String?
        if let body = bodies.first {
            let path = fields.path(body.key)
            switch body.key {
            case "text":
                response.body = Data(try string(body.value, path).utf8)
                contentType = "text/plain; charset=utf-8"
                source = "text"
            case "json":
                response.body = Data(JSONWriter.serialize(body.value).utf8)
                contentType = "application/json"
                source = "json"
            case "base64":
                let text = try string(body.value, path)
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    throw error(body.value.position, path, "invalid base64")
                }
                response.body = data
                contentType = "application/octet-stream"
                source = "base64"
            default:
                let url = try fileURL(body, path)
                do {
                    response.body = try options.readFile(url)
                } catch {
                    throw self.error(body.value.position, path, "cannot read \"\(fileText(body))\" (\(url.path))")
                }
                contentType = ContentTypes.type(forFileName: url.lastPathComponent)
                source = "file \(fileText(body))"
            }
        }
        if let contentType, !response.headers.contains("Content-Type") {
            response.headers.add(name: "Content-Type", value: contentType)
        }
        return MockAction(response: response, bodySource: source)
    }

    private func readMapLocal(_ node: JSONNode, _ field: String) throws(RuleFileError) -> MapLocalAction {
        let fields = try object(node, field, keys: ["file", "directory", "pathPrefix", "index", "status", "headers"])
        var status = 200
        if let member = fields["status"] { status = try integer(member.value, fields.path("status"), in: 100...599) }
        var headers = HTTPHeaders()
        if let member = fields["headers"] { headers = try headerFields(member.value, fields.path("headers")) }
        switch (fields["file"], fields["directory"]) {
        case (let file?, nil):
            for key in ["pathPrefix", "index"] {
                if let member = fields[key] {
                    throw error(member.keyPosition, fields.path(key), "\(key) applies only to a directory")
                }
            }
            return MapLocalAction(source: .file(try fileURL(file, fields.path("file"))), statusCode: status, headers: headers)
        case (nil, let directory?):
            var prefix = "/"
            if let member = fields["pathPrefix"] {
                prefix = try string(member.value, fields.path("pathPrefix"))
                guard prefix.hasPrefix("/") else {
                    throw error(member.value.position, fields.path("pathPrefix"), "a path prefix must start with '/'")
                }
            }
            var indexFile = "index.html"
            if let member = fields["index"] {
                indexFile = try nonEmptyString(member.value, fields.path("index"))
                guard !indexFile.contains("/"), indexFile != "..", indexFile != "." else {
                    throw error(member.value.position, fields.path("index"), "an index file is a file name, not a path")
                }
            }
            let url = try fileURL(directory, fields.path("directory"))
            return MapLocalAction(
                source: .directory(url, pathPrefix: prefix, indexFile: indexFile), statusCode: status, headers: headers)
        case (let file?, _?):
            throw error(file.keyPosition, field, "use either file or directory, not both")
        case (nil, nil):
            throw error(node.position, field, "mapLocal needs \"file\" or \"directory\"")
        }
    }

    private func readRewrite(_ node: JSONNode, _ field: String) throws(RuleFileError) -> RewriteAction {
        let keys = ["scheme", "host", "port", "path", "query", "hostToIP"]
        let fields = try object(node, field, keys: keys)
        guard !fields.members.isEmpty else {
            throw error(node.position, field, "rewrite needs at least one of: " + keys.joined(separator: ", "))
        }
        var rewrite = RewriteAction()
        if let member = fields["scheme"] {
            let scheme = try string(member.value, fields.path("scheme"))
            guard scheme == "http" || scheme == "https" else {
                throw error(member.value.position, fields.path("scheme"), "must be \"http\" or \"https\", found \"\(scheme)\"")
            }
            rewrite.scheme = scheme
        }
        if let member = fields["host"] {
            let host = try nonEmptyString(member.value, fields.path("host"))
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") }) else {
                throw error(member.value.position, fields.path("host"), "invalid host \"\(host)\" (a host name only, without scheme, port or path)")
            }
            rewrite.host = host.lowercased()
        }
        if let member = fields["port"] { rewrite.port = try integer(member.value, fields.path("port"), in: 1...65535) }
        if let member = fields["path"] {
            let path = fields.path("path")
            let inner = try object(member.value, path, keys: ["regex", "replace"])
            let pattern = try regex(try inner.required("regex", in: self).value, path + ".regex")
            let replaceMember = try inner.required("replace", in: self)
            let replacement = try string(replaceMember.value, path + ".replace")
            if let group = Self.highestGroupReference(in: replacement), group > pattern.captureGroupCount {
                throw error(
                    replaceMember.value.position, path + ".replace",
                    "the replacement uses $\(group) but the expression has "
                        + (pattern.captureGroupCount == 1 ? "1 capture group" : "\(pattern.captureGroupCount) capture groups"))
            }
            rewrite.path = RewriteAction.PathRewrite(regex: pattern, replacement: replacement)
        }
        if let member = fields["query"] {
            let path = fields.path("query")
            let inner = try object(member.value, path, keys: ["set", "add", "remove"])
            for edit in inner.members {
                let editPath = path + "." + edit.key
                if edit.key == "remove" {
                    for (name, _) in try stringArray(edit.value, editPath) { rewrite.queryEdits.append(.remove(name: name)) }
                    continue
                }
                guard case .object(let pairs) = edit.value.value else {
                    throw error(edit.value.position, editPath, "expected an object of names and values, found \(edit.value.summary)")
                }
                for pair in pairs {
                    let value = try string(pair.value, editPath + "." + pair.key)
                    rewrite.queryEdits.append(edit.key == "set" ? .set(name: pair.key, value: value) : .add(name: pair.key, value: value))
                }
            }
        }
        if let member = fields["hostToIP"] {
            let address = try string(member.value, fields.path("hostToIP"))
            guard Self.isIPAddress(address) else {
                throw error(member.value.position, fields.path("hostToIP"), "\"\(address)\" is not an IPv4 or IPv6 address")
            }
            rewrite.hostToIP = address
        }
        return rewrite
    }

    private func readBlock(_ node: JSONNode, _ field: String) throws(RuleFileError) -> BlockAction {
        let fields = try object(node, field, keys: ["error", "status"])
        switch (fields["error"], fields["status"]) {
        case (let member?, nil):
            return .fail(try errorCode(member.value, fields.path("error")))
        case (nil, let member?):
            return .status(try integer(member.value, fields.path("status"), in: 100...599))
        case (_?, let status?):
            throw error(status.keyPosition, field, "use either error or status, not both")
        case (nil, nil):
            throw error(node.position, field, "block needs \"error\" (a URL error) or \"status\" (an HTTP status)")
        }
    }

    private func readHeaderAction(_ node: JSONNode, _ field: String) throws(RuleFileError) -> HeaderAction {
        let fields = try object(node, field, keys: ["request", "response"])
        guard !fields.members.isEmpty else {
            throw error(node.position, field, "headers needs \"request\" or \"response\" edits")
        }
        var action = HeaderAction()
        if let member = fields["request"] { action.request = try headerEdits(member.value, fields.path("request")) }
        if let member = fields["response"] { action.response = try headerEdits(member.value, fields.path("response")) }
        return action
    }

    private func headerEdits(_ node: JSONNode, _ field: String) throws(RuleFileError) -> [HeaderEdit] {
        let fields = try object(node, field, keys: ["add", "set", "remove"])
        var edits: [HeaderEdit] = []
        for member in fields.members {
            let path = field + "." + member.key
            if member.key == "remove" {
                for (name, position) in try stringArray(member.value, path) {
                    guard Self.isToken(name) else { throw error(position, path, "invalid header name \"\(name)\"") }
                    edits.append(.remove(name: name))
                }
                continue
            }
            let headers = try headerFields(member.value, path, allowsLists: member.key == "add")
            for header in headers {
                edits.append(member.key == "add" ? .add(name: header.name, value: header.value) : .set(name: header.name, value: header.value))
            }
        }
        return edits
    }

    private func readThrottle(_ node: JSONNode, _ field: String) throws(RuleFileError) -> ThrottleProfile {
        let fields = try object(
            node, field,
            keys: ["preset", "latency", "downloadBytesPerSecond", "uploadBytesPerSecond", "failureProbability",
                "failureError", "timeout", "seed"])
        guard !fields.members.isEmpty else {
            throw error(node.position, field, "throttle needs a preset or at least one setting")
        }
        var profile = ThrottleProfile()
        if let member = fields["preset"] {
            let name = try string(member.value, fields.path("preset"))
            guard let preset = ThrottlePreset.named(name) else {
                throw error(
                    member.value.position, fields.path("preset"),
                    "unknown preset \"\(name)\"\(Self.suggestion(name, ThrottlePreset.names)); expected one of: "
                        + ThrottlePreset.names.joined(separator: ", "))
            }
            profile = preset
        }
        var own = ThrottleProfile()
        if let member = fields["latency"] { own.latency = try number(member.value, fields.path("latency"), in: 0...3600) }
        if let member = fields["downloadBytesPerSecond"] {
            own.downloadBytesPerSecond = try integer(member.value, fields.path("downloadBytesPerSecond"), in: 1...Int(Int32.max))
        }
        if let member = fields["uploadBytesPerSecond"] {
            own.uploadBytesPerSecond = try integer(member.value, fields.path("uploadBytesPerSecond"), in: 1...Int(Int32.max))
        }
        if let member = fields["failureProbability"] {
            own.failureProbability = try number(member.value, fields.path("failureProbability"), in: 0...1)
        }
        if let member = fields["failureError"] { own.failureError = try errorCode(member.value, fields.path("failureError")) }
        if let member = fields["timeout"] {
            let seconds = try number(member.value, fields.path("timeout"), in: 0...86_400)
            guard seconds > 0 else {
                throw error(member.value.position, fields.path("timeout"), "must be a number of seconds above 0, found 0")
            }
            own.forcedTimeout = seconds
        }
        if let member = fields["seed"] { own.seed = UInt64(try integer(member.value, fields.path("seed"), in: 0...Int.max)) }
        return profile.merged(with: own)
    }

    private func readProxy(_ node: JSONNode, _ field: String) throws(RuleFileError) -> ProxyTarget {
        let fields = try object(node, field, keys: ["host", "port", "type"])
        let host = try nonEmptyString(try fields.required("host", in: self).value, fields.path("host"))
        let port = try integer(try fields.required("port", in: self).value, fields.path("port"), in: 1...65535)
        var kind = ProxyTarget.Kind.http
        if let member = fields["type"] {
            let text = try string(member.value, fields.path("type"))
            guard let parsed = ProxyTarget.Kind(rawValue: text) else {
                throw error(member.value.position, fields.path("type"), "must be \"http\" or \"https\", found \"\(text)\"")
            }
            kind = parsed
        }
        return ProxyTarget(host: host, port: port, kind: kind)
    }

    private func readReplay(_ node: JSONNode, _ field: String) throws(RuleFileError) -> ReplaySource {
        let fields = try object(
            node, field, keys: ["har", "ignoreQueryItems", "ignoreHeaders", "matchHeaders", "matchBody", "reuseLast", "mode"])
        let har = try fileURL(try fields.required("har", in: self), fields.path("har"))
        var options = ReplayOptions()
        if let member = fields["ignoreQueryItems"] {
            options.ignoreQueryItems = Set(try stringArray(member.value, fields.path("ignoreQueryItems")).map(\.0))
        }
        if let member = fields["ignoreHeaders"] {
            options.ignoreHeaders = Set(try stringArray(member.value, fields.path("ignoreHeaders")).map { $0.0.lowercased() })
        }
        if let member = fields["matchHeaders"] {
            options.matchHeaders = try stringArray(member.value, fields.path("matchHeaders")).map { $0.0.lowercased() }
        }
        if let member = fields["matchBody"] {
            options.matchBody = try choice(member.value, fields.path("matchBody"), named: "matchBody", of: ReplayOptions.BodyMatching.self)
        }
        if let member = fields["reuseLast"] { options.reuseLast = try bool(member.value, fields.path("reuseLast")) }
        if let member = fields["mode"] {
            options.mode = try choice(member.value, fields.path("mode"), named: "mode", of: ReplayOptions.Mode.self)
        }
        return ReplaySource(harFile: har, options: options)
    }

    // MARK: Values

    func error(_ position: SourcePosition, _ field: String, _ message: String) -> RuleFileError {
        RuleFileError(file: file, position: position, ruleIndex: ruleIndex, ruleName: ruleName, field: field, message: message)
    }

    /// An object's members, after checking that every key is one of `keys`.
    func object(_ node: JSONNode, _ field: String, keys: [String]) throws(RuleFileError) -> ObjectFields {
        guard case .object(let members) = node.value else {
            throw error(node.position, field, "expected an object, found \(node.summary)")
        }
        for member in members where !keys.contains(member.key) {
            throw error(
                member.keyPosition, field,
                "unknown key \"\(member.key)\"\(Self.suggestion(member.key, keys)); expected one of: " + keys.joined(separator: ", "))
        }
        return ObjectFields(node: node, members: members, field: field)
    }

    private func objectMembers(_ node: JSONNode) -> [JSONMember] {
        if case .object(let members) = node.value { return members }
        return []
    }

    func string(_ node: JSONNode, _ field: String) throws(RuleFileError) -> String {
        guard case .string(let text) = node.value else {
            throw error(node.position, field, "expected a string, found \(node.summary)")
        }
        return text
    }

    private func nonEmptyString(_ node: JSONNode, _ field: String) throws(RuleFileError) -> String {
        let text = try string(node, field)
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw error(node.position, field, "must not be empty")
        }
        return text
    }

    private func bool(_ node: JSONNode, _ field: String) throws(RuleFileError) -> Bool {
        guard case .bool(let flag) = node.value else {
            throw error(node.position, field, "expected true or false, found \(node.summary)")
        }
        return flag
    }

    private func integer(_ node: JSONNode, _ field: String, in range: ClosedRange<Int>) throws(RuleFileError) -> Int {
        guard case .number(let text) = node.value, let value = Int(text) else {
            if case .number(let text) = node.value, !text.contains("."), !text.lowercased().contains("e") {
                throw error(node.position, field, "\(text) is too large")
            }
            throw error(node.position, field, "expected an integer, found \(node.summary)")
        }
        guard range.contains(value) else {
            throw error(node.position, field, "must be an integer from \(range.lowerBound) to \(range.upperBound), found \(text)")
        }
        return value
    }

    private func integers(_ node: JSONNode, _ field: String, in range: ClosedRange<Int>) throws(RuleFileError) -> [Int] {
        if case .array(let elements) = node.value {
            guard !elements.isEmpty else { throw error(node.position, field, "expected at least one value") }
            var values: [Int] = []
            for (index, element) in elements.enumerated() {
                values.append(try integer(element, "\(field)[\(index)]", in: range))
            }
            return values
        }
        return [try integer(node, field, in: range)]
    }

    private func number(_ node: JSONNode, _ field: String, in range: ClosedRange<Double>) throws(RuleFileError) -> Double {
        guard case .number(let text) = node.value, let value = Double(text) else {
            throw error(node.position, field, "expected a number, found \(node.summary)")
        }
        guard range.contains(value) else {
            throw error(
                node.position, field,
                "must be a number from \(ThrottleProfile.format(range.lowerBound)) to \(ThrottleProfile.format(range.upperBound)), found \(text)")
        }
        return value
    }

    /// A string, or a non-empty array of strings, with each one's position.
    private func strings(_ node: JSONNode, _ field: String) throws(RuleFileError) -> [(String, SourcePosition)] {
        switch node.value {
        case .string(let text):
            return [(text, node.position)]
        case .array(let elements):
            guard !elements.isEmpty else { throw error(node.position, field, "expected at least one value") }
            var result: [(String, SourcePosition)] = []
            for (index, element) in elements.enumerated() {
                result.append((try string(element, "\(field)[\(index)]"), element.position))
            }
            return result
        default:
            throw error(node.position, field, "expected a string or an array of strings, found \(node.summary)")
        }
    }

    private func stringArray(_ node: JSONNode, _ field: String) throws(RuleFileError) -> [(String, SourcePosition)] {
        guard case .array(let elements) = node.value else {
            throw error(node.position, field, "expected an array of strings, found \(node.summary)")
        }
        var result: [(String, SourcePosition)] = []
        for (index, element) in elements.enumerated() {
            result.append((try string(element, "\(field)[\(index)]"), element.position))
        }
        return result
    }

    private func regex(_ node: JSONNode, _ field: String) throws(RuleFileError) -> RuleRegex {
        let pattern = try string(node, field)
        do {
            return try RuleRegex(pattern)
        } catch {
            throw self.error(node.position, field, "invalid regular expression \"\(error.pattern)\"")
        }
    }

    /// Header fields from `{"Name": "value"}`; with `allowsLists`, `{"Name": ["a", "b"]}` adds two fields.
    private func headerFields(_ node: JSONNode, _ field: String, allowsLists: Bool = true) throws(RuleFileError) -> HTTPHeaders {
        guard case .object(let members) = node.value else {
            throw error(node.position, field, "expected an object of header names and values, found \(node.summary)")
        }
        var headers = HTTPHeaders()
        for member in members {
            guard Self.isToken(member.key) else {
                throw error(member.keyPosition, field, "invalid header name \"\(member.key)\"")
            }
            let path = field + "." + member.key
            let values: [(String, SourcePosition)]
            if allowsLists, case .array = member.value.value {
                values = try stringArray(member.value, path)
            } else {
                values = [(try string(member.value, path), member.value.position)]
            }
            for (value, position) in values {
                guard !value.contains("\r"), !value.contains("\n") else {
                    throw error(position, path, "a header value must not contain a line break")
                }
                headers.add(name: member.key, value: value)
            }
        }
        return headers
    }

    private func errorCode(_ node: JSONNode, _ field: String) throws(RuleFileError) -> URLErrorCode {
        switch node.value {
        case .number:
            return URLErrorCode(code: try integer(node, field, in: Int(Int32.min)...Int(Int32.max)))
        case .string(let name):
            if let code = URLErrorCode(name: name) { return code }
            let names = URLErrorCode.names.map(\.name)
            throw error(
                node.position, field,
                "unknown error \"\(name)\"\(Self.suggestion(name, names)); expected a number or one of: "
                    + names.joined(separator: ", "))
        default:
            throw error(node.position, field, "expected an error name or code, found \(node.summary)")
        }
    }

    private func choice<Choice: RawRepresentable & CaseIterable>(
        _ node: JSONNode, _ field: String, named name: String, of type: Choice.Type
    ) throws(RuleFileError) -> Choice where Choice.RawValue == String {
        let text = try string(node, field)
        if let value = Choice(rawValue: text) { return value }
        let names = Choice.allCases.map(\.rawValue)
        throw error(
            node.position, field,
            "unknown \(name) \"\(text)\"\(Self.suggestion(text, names)); expected one of: " + names.joined(separator: ", "))
    }

    /// A file path (a string), resolved against the rules file's directory.
    private func fileURL(_ member: JSONMember, _ field: String) throws(RuleFileError) -> URL {
        let path = try nonEmptyString(member.value, field)
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        // Appending (not `relativeTo:`) treats the base as a directory even without a trailing "/".
        return baseDirectory.appendingPathComponent(path).standardizedFileURL
    }

    private func fileText(_ member: JSONMember) -> String {
        if case .string(let text) = member.value.value { return text }
        return ""
    }

    // MARK: Checks

    /// An HTTP token (method, header name): letters, digits and `!#$%&'*+-.^_`|~`.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
        }
    }

    static func isIPAddress(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }) {
            return true
        }
        guard text.contains(":"), text.filter({ $0 == ":" }).count >= 2 else { return false }
        guard text.components(separatedBy: "::").count <= 2 else { return false }
        let groups = text.split(separator: ":", omittingEmptySubsequences: true)
        return groups.count <= 8 && groups.allSatisfy { group in
            group.count <= 4 && group.allSatisfy(\.isHexDigit)
        }
    }

    /// The highest `$n` in a replacement template (`\$` escapes a dollar).
    static func highestGroupReference(in template: String) -> Int? {
        var highest: Int?
        var characters = template.makeIterator()
        var previous: Character?
        while let character = characters.next() {
            defer { previous = character }
            guard character == "$", previous != "\\" else { continue }
            var digits = ""
            while let next = characters.next() {
                if next.isASCII, next.isNumber {
                    digits.append(next)
                } else {
                    break
                }
            }
            if let value = Int(digits) { highest = max(highest ?? 0, value) }
        }
        return highest
    }

    /// ` (did you mean "host"?)` when a known word is within two edits of `word`, else "".
    static func suggestion(_ word: String, _ candidates: [String]) -> String {
        let lowered = word.lowercased()
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= 2, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best.map { " (did you mean \"\($0.0)\"?)" } ?? ""
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let left = Array(a)
        let right = Array(b)
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        var previous = Array(0...right.count)
        for (i, leftCharacter) in left.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: right.count)
            for (j, rightCharacter) in right.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (leftCharacter == rightCharacter ? 0 : 1))
            }
            previous = current
        }
        return previous[right.count]
    }
}

/// The members of one JSON object, with the field path that errors about them use.
struct ObjectFields {
    let node: JSONNode
    let members: [JSONMember]
    let field: String

    subscript(key: String) -> JSONMember? {
        members.first { $0.key == key }
    }

    /// The path of a member: `match.host`, or `version` at the top.
    func path(_ key: String) -> String {
        field.isEmpty ? key : field + "." + key
    }

    func required(_ key: String, in reader: RuleFileReader, hint: String = "") throws(RuleFileError) -> JSONMember {
        guard let member = self[key] else {
            throw reader.error(node.position, field, "missing \"\(key)\"" + hint)
        }
        return member
    }
}
