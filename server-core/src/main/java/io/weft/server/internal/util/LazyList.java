package io.weft.server.internal.util;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A copy-on-write list created on its first element: listeners, extensions and authorizers of sessions and
 * channels, which most sessions and channels never have. Thread-safe; reads take no lock.
 */
public final class LazyList<T> {
    private volatile CopyOnWriteArrayList<T> items;

    public void add(T item) {
        Objects.requireNonNull(item);
        CopyOnWriteArrayList<T> list = items;
        if (list == null) {
            synchronized (this) {
                if (items == null) {
                    items = new CopyOnWriteArrayList<>();
                }
                list = items;
            }
        }
        list.add(item);
    }

    public void remove(T item) {
        CopyOnWriteArrayList<T> list = items;
        if (list != null) {
            list.remove(item);
        }
    }

    /** The items, in the order added: a live read-only view, or an empty list. */
    public List<T> get() {
        CopyOnWriteArrayList<T> list = items;
        return list == null ? List.of() : list;
    }
}
