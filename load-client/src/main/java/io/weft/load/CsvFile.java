package io.weft.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A CSV file that rows are appended to, one run or step at a time, under a header written when the file is new. A
 * file that already starts with another header is refused rather than mixed: its columns would no longer say what its
 * values are. Used by {@link ResultsFolder} ({@code load-runs.csv}) and by the bench commands.
 */
public final class CsvFile {
    private CsvFile() {
    }

    /**
     * Appends {@code row} to {@code csv}, first writing {@code header} if the file is missing or empty.
     *
     * @throws IllegalStateException if the file starts with another header
     */
    public static void append(Path csv, String header, String row) throws IOException {
        Path parent = csv.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        boolean fresh = !Files.exists(csv) || Files.size(csv) == 0;
        if (!fresh) {
            String first;
            try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
                first = in.readLine();
            }
            if (!header.equals(first)) {
                throw new IllegalStateException(csv + " has other columns (" + first + "), not " + header);
            }
        }
        String text = (fresh ? header + System.lineSeparator() : "") + row + System.lineSeparator();
        Files.writeString(csv, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
