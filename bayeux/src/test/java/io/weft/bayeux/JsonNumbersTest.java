package io.weft.bayeux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Numbers as the codec decodes them, read as a {@code long}: clamped past its range, never wrapped. */
class JsonNumbersTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "0, 0",
        "20000, 20000",
        "-5, -5",
        "9223372036854775807, 9223372036854775807",
        "9223372036854775808, 9223372036854775807",
        "18446744073709551621, 9223372036854775807",
        "-18446744073709551621, -9223372036854775808",
        "2.9, 2",
        "-2.9, -2",
        "1e18, 1000000000000000000",
        "1e19, 9223372036854775807",
        "1e400, 9223372036854775807",
        "1e999999999, 9223372036854775807",
        "-1e999999999, -9223372036854775808",
        "1e-999999999, 0",
    })
    void aDecodedNumberIsClampedToTheRangeOfLong(String json, long expected) throws MessageDecodeException {
        Object decoded = Codec.json().decode("[{\"channel\":\"/a\",\"data\":{\"n\":" + json + "}}]").get(0)
                .getDataAsMap().get("n");
        long value = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> JsonNumbers.toLong((Number) decoded));
        assertEquals(expected, value, json + " decoded as " + decoded.getClass().getSimpleName());
    }

    @ParameterizedTest
    @CsvSource({"NaN, 0", "Infinity, 9223372036854775807", "-Infinity, -9223372036854775808"})
    void doublesSaturate(double value, long expected) {
        assertEquals(expected, JsonNumbers.toLong(value));
    }
}
