/// What the platform's URLSession does with settings that NetTap's tools pass through unchanged.
/// The only platform conditional of this kind outside the capture engines.
public enum URLLoadingPlatform {
    #if canImport(Darwin)
    /// Apple's URLSession honours fractions of a second in `timeoutInterval`.
    public static let timeoutsAreWholeSeconds = false
    #else
    /// swift-corelibs-foundation turns `timeoutInterval` into `Int(timeoutInterval) * 1000`
    /// milliseconds for libcurl, so 0.5 s becomes 0, which libcurl reads as no timeout at all
    /// (docs/linux-foundation-notes.md, fact 3).
    public static let timeoutsAreWholeSeconds = true
    #endif
}
