package io.weft.server.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.server.api.ServerOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

class BrowserCookiesTest {
    private final BrowserCookies cookies = new BrowserCookies(ServerOptions.BrowserCookie.DEFAULT);

    @Test
    void findsTheBrowserCookieAmongOthers() {
        assertEquals("abc", cookies.read(List.of("a=1; BAYEUX_BROWSER=abc; b=2")));
        assertEquals("abc", cookies.read(List.of("theme=dark", "BAYEUX_BROWSER=abc")));
        assertEquals("abc", cookies.read(List.of("BAYEUX_BROWSER=\"abc\"")));
        assertEquals("a-b_C9", cookies.read(List.of(" BAYEUX_BROWSER = a-b_C9 ")));
    }

    @Test
    void absentOrImplausibleValuesCountAsNoCookie() {
        assertNull(cookies.read(null));
        assertNull(cookies.read(List.of()));
        assertNull(cookies.read(List.of("XBAYEUX_BROWSER=abc; BAYEUX_BROWSERX=def")));
        assertNull(cookies.read(List.of("BAYEUX_BROWSER=")));
        assertNull(cookies.read(List.of("BAYEUX_BROWSER=a b")));
        assertNull(cookies.read(List.of("BAYEUX_BROWSER=" + "z".repeat(65))));
    }

    @Test
    void freshValuesAreUnguessableAndReadBack() {
        String one = cookies.newValue();
        String two = cookies.newValue();
        assertNotEquals(one, two);
        assertEquals(24, one.length(), "144 random bits in base64url");
        assertEquals(one, cookies.read(List.of("BAYEUX_BROWSER=" + one)));
    }

    @Test
    void setCookieHeaderIsHttpOnlyWithTheConfiguredAttributes() {
        assertEquals("BAYEUX_BROWSER=v; Path=/; HttpOnly; SameSite=Lax", cookies.setCookieHeader("v", false));
        assertEquals("BAYEUX_BROWSER=v; Path=/; HttpOnly; Secure; SameSite=Lax", cookies.setCookieHeader("v", true),
                "an upgrade over HTTPS gets a Secure cookie whatever the options say");
        BrowserCookies custom = new BrowserCookies(new ServerOptions.BrowserCookie("WEFT", "/app", true, "None"));
        String header = custom.setCookieHeader("v", false);
        assertEquals("WEFT=v; Path=/app; HttpOnly; Secure; SameSite=None", header);
        assertTrue(custom.read(List.of("WEFT=v")) != null);
    }
}
