package io.weft.examples.guide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What makes Weft usable as a dependency, checked against the build files themselves: a license, and a BOM that pins
 * every library module (the reactor's modules but the BOM and the two example modules) and nothing else.
 */
class PublishingTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    private static List<String> all(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }

    @Test
    void theBomPinsEveryLibraryModuleAndNothingElse() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        TreeSet<String> libraries = new TreeSet<>(all(Pattern.compile("<module>([^<]+)</module>"), parent));
        libraries.remove("bom");
        libraries.remove("examples");
        libraries.remove("spring-boot-example");
        libraries.remove("bench"); // the benchmark harness, not a library
        for (String module : libraries) {
            String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
            assertTrue(pom.contains("<artifactId>" + module + "</artifactId>"), module + "'s artifactId is its folder");
        }

        String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
        assertTrue(!bom.contains("<parent>"), "the BOM must not bring a parent's dependencyManagement with it");
        TreeSet<String> pinned = new TreeSet<>(all(Pattern.compile(
                "<groupId>io\\.weft</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>\\$\\{project\\.version}"),
                bom));
        assertEquals(libraries, pinned);
    }

    @Test
    void theLibraryIsApacheLicensedAndSaysSo() throws IOException {
        assertTrue(Files.readString(ROOT.resolve("LICENSE")).contains("Apache License"));
        for (String pom : List.of("pom.xml", "bom/pom.xml")) {
            String text = Files.readString(ROOT.resolve(pom));
            assertTrue(text.contains("<name>Apache License, Version 2.0</name>"), pom);
            assertTrue(text.contains("<scm>"), pom);
        }
    }
}
