/// What the platform's URL loading can do for rules. The only platform conditional of NetTapRules.
public enum RulesPlatform {
    #if canImport(Darwin)
    /// Apple platforms route a forwarding session through `connectionProxyDictionary`.
    public static let supportsProxyRules = true
    #else
    /// swift-corelibs-foundation ignores `connectionProxyDictionary` (docs/linux-urlsession-facts.md,
    /// fact 5), so a per-rule proxy cannot work; rules files with proxy actions are rejected.
    public static let supportsProxyRules = false
    #endif

    /// The message for a proxy action on a platform without proxy rules.
    public static let proxyUnsupportedMessage =
        "proxy rules are not supported on Linux: swift-corelibs-foundation ignores connectionProxyDictionary; "
        + "set http_proxy/https_proxy for the whole process instead"
}
