package io.weft.bayeux;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one completion type of Weft: whoever starts an asynchronous operation passes a {@code Promise}, and whoever
 * performs it completes the promise exactly once, with {@link #succeed(Object)} or {@link #fail(Throwable)}, on
 * whatever thread the operation finished on. Implementations must not block and should return quickly.
 *
 * @param <T> the result type; {@code Void} for operations without a result (complete with {@code null})
 */
public interface Promise<T> {
    void succeed(T result);

    void fail(Throwable failure);

    /** A promise that ignores its outcome. */
    static <T> Promise<T> noop() {
        return from(result -> { }, failure -> { });
    }

    static <T> Promise<T> from(Consumer<? super T> onSuccess, Consumer<Throwable> onFailure) {
        Objects.requireNonNull(onSuccess, "onSuccess");
        Objects.requireNonNull(onFailure, "onFailure");
        return new Promise<>() {
            @Override
            public void succeed(T result) {
                onSuccess.accept(result);
            }

            @Override
            public void fail(Throwable failure) {
                onFailure.accept(failure);
            }
        };
    }
}
