package io.weft.examples.chat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 made for one test run by the JDK's keytool, written as PEM files for a
 * server that is not Java (nginx), with a trust store for Java clients. Needs no openssl.
 *
 * @param certificate the certificate, PEM ({@code NODE_EXTRA_CA_CERTS} takes it too)
 * @param privateKey its private key, PKCS#8 PEM
 * @param trustStore a key store that trusts the certificate
 */
record SelfSignedCertificate(Path certificate, Path privateKey, KeyStore trustStore) {
    private static final String PASSWORD = "weft-test";

    /** Makes the certificate and its files in {@code folder}. */
    static SelfSignedCertificate create(Path folder) throws Exception {
        Files.createDirectories(folder);
        Path keystore = folder.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "weft", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        String printed = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(30, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            keytool.destroyForcibly();
            throw new IOException("keytool failed: " + printed);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        X509Certificate certificate = (X509Certificate) store.getCertificate("weft");
        PrivateKey key = (PrivateKey) store.getKey("weft", PASSWORD.toCharArray());
        Path certificateFile = folder.resolve("server.crt");
        Path keyFile = folder.resolve("server.key");
        Files.writeString(certificateFile, pem("CERTIFICATE", certificate.getEncoded()));
        Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded())); // getEncoded: PKCS#8
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("nginx", certificate);
        return new SelfSignedCertificate(certificateFile, keyFile, trust);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
