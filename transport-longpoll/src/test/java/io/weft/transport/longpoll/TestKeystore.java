package io.weft.transport.longpoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/** A self-signed certificate for 127.0.0.1, made by the JDK's keytool for a test run, and the server's TLS on it. */
final class TestKeystore {
    static final String PASSWORD = "weft-test";

    private TestKeystore() {
    }

    /** Creates {@code folder/server.p12} and returns its path. */
    static Path create(Path folder) throws Exception {
        Path keystore = folder.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "weft", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        assertTrue(keytool.waitFor(30, TimeUnit.SECONDS), "keytool did not finish");
        assertEquals(0, keytool.exitValue(), new String(keytool.getInputStream().readAllBytes()));
        assertTrue(Files.size(keystore) > 0);
        return keystore;
    }

    /** The server side of TLS with {@code keystore}. */
    static SslContextFactory.Server server(Path keystore) {
        SslContextFactory.Server tls = new SslContextFactory.Server();
        tls.setKeyStorePath(keystore.toString());
        tls.setKeyStorePassword(PASSWORD);
        tls.setKeyStoreType("PKCS12");
        return tls;
    }
}
