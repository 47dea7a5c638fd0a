package io.weft.bayeux;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Numbers read from JSON (a decoded message's fields), as a {@code long}. The codec gives {@code Integer}, {@code Long}
 * and {@code Double} where they fit, {@code BigInteger} and {@code BigDecimal} where they do not: {@link
 * Number#longValue()} keeps only the low 64 bits of those ({@code 2^64 + 5} is 5, {@code 1e999999999} is 0), so a
 * client could turn "as large as possible" into "almost nothing". Read numbers a client sends through here.
 */
public final class JsonNumbers {
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);

    private JsonNumbers() {
    }

    /**
     * {@code number} as a {@code long}, clamped to {@link Long#MIN_VALUE}..{@link Long#MAX_VALUE} when it is past
     * that range; a fraction is dropped (toward zero), NaN is 0. Costs no more for a huge exponent than for 1.
     */
    public static long toLong(Number number) {
        if (number instanceof BigInteger integer) {
            if (integer.bitLength() < Long.SIZE) {
                return integer.longValue();
            }
            return integer.signum() > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        if (number instanceof BigDecimal decimal) {
            // compareTo looks at the exponents first: 1e999999999 is never expanded.
            if (decimal.compareTo(LONG_MAX) >= 0) {
                return Long.MAX_VALUE;
            }
            if (decimal.compareTo(LONG_MIN) <= 0) {
                return Long.MIN_VALUE;
            }
            return decimal.longValue();
        }
        if (number instanceof Double || number instanceof Float) {
            // The narrowing conversion already saturates, and maps NaN to 0.
            return (long) number.doubleValue();
        }
        return number.longValue();
    }
}
