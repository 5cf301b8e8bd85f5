import Foundation
import NetTapCore
import Testing
@testable import NetTapExport

/// Cookies for HAR's `cookies` arrays, read from Cookie and Set-Cookie headers.
@Suite struct HARCookieTests {
    @Test func requestCookiesComeFromEveryCookieHeader() {
        let headers = HTTPHeaders([
            HTTPHeaderField(name: "Cookie", value: "a=1; b=two=2;  c= spaced ;"),
            HTTPHeaderField(name: "cookie", value: "flag"),
        ])
        let cookies = HARCookie.requestCookies(in: headers)
        #expect(cookies.map(\.name) == ["a", "b", "c", "flag"])
        #expect(cookies.map(\.value) == ["1", "two=2", "spaced", ""])
    }

    @Test func setCookieAttributesAreRead() throws {
        let cookie = try #require(HARCookie.parseSetCookie(
            "id=a3fWa; Expires=Thu, 21 Oct 2027 07:28:00 GMT; Secure; HttpOnly; Path=/docs; Domain=.example.test; SameSite=Strict; Max-Age=60"))
        #expect(cookie.name == "id")
        #expect(cookie.value == "a3fWa")
        #expect(cookie.path == "/docs")
        #expect(cookie.domain == ".example.test")
        #expect(cookie.secure && cookie.httpOnly)
        #expect(cookie.sameSite == "Strict")
        #expect(cookie.expires.map(ISOTimestamp.string(micros:)) == "2027-10-21T07:28:00.000Z")
        #expect(HARCookie.parseSetCookie("") == nil)
    }

    @Test(arguments: [
        "Thu, 21 Oct 2027 07:28:00 GMT",
        "Thursday, 21-Oct-27 07:28:00 GMT",
        "Thu, 21-Oct-2027 07:28:00 GMT",
        "Thu Oct 21 07:28:00 2027",
    ])
    func expiryDatesInTheirSeveralShapes(text: String) {
        #expect(CookieDate.parse(text).map(ISOTimestamp.string(micros:)) == "2027-10-21T07:28:00.000Z", "\(text)")
    }

    @Test func anUnreadableExpiryIsLeftOut() {
        #expect(CookieDate.parse("soon") == nil)
        #expect(HARCookie.parseSetCookie("a=1; Expires=soon")?.expires == nil)
    }
}
