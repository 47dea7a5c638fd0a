package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvFileTest {
    @TempDir
    Path folder;

    @Test
    void theHeaderIsWrittenOnceAboveEveryRow() throws Exception {
        Path csv = folder.resolve("sub/runs.csv");

        CsvFile.append(csv, "a,b", "1,2");
        CsvFile.append(csv, "a,b", "3,4");

        assertEquals(List.of("a,b", "1,2", "3,4"), Files.readAllLines(csv));
    }

    @Test
    void aFileWithOtherColumnsIsRefusedNotMixed() throws Exception {
        Path csv = folder.resolve("runs.csv");
        CsvFile.append(csv, "a,b", "1,2");

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> CsvFile.append(csv, "a,b,c", "1,2,3"));

        assertEquals(csv + " has other columns (a,b), not a,b,c", refused.getMessage());
        assertEquals(List.of("a,b", "1,2"), Files.readAllLines(csv));
    }
}
