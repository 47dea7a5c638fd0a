package io.weft.bayeux.internal;

import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Nested JSON values (maps and lists of them) as a frozen message shares them: read-only views at every depth, so
 * that no reader can change what other recipients' threads may be encoding; and deep copies, for a recipient whose
 * extension is about to change its own.
 */
final class JsonValues {
    private JsonValues() {
    }

    /** {@code value} itself if it is a scalar, else a read-only view of it whose nested values are read-only too. */
    @SuppressWarnings("unchecked")
    static Object readOnly(Object value) {
        if (value instanceof ReadOnlyMap || value instanceof ReadOnlyList) {
            return value;
        }
        if (value instanceof Map<?, ?> map) {
            return new ReadOnlyMap((Map<String, Object>) map);
        }
        if (value instanceof List<?> list) {
            return new ReadOnlyList((List<Object>) list);
        }
        return value;
    }

    /** A mutable deep copy of maps and lists; other values (strings, numbers, application objects) are shared. */
    static Object deepCopy(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>(Math.max(4, map.size() * 2));
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                copy.put(String.valueOf(entry.getKey()), deepCopy(entry.getValue()));
            }
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            for (Object element : list) {
                copy.add(deepCopy(element));
            }
            return copy;
        }
        return value;
    }

    /** Whether {@code value} is a map or list, which a copy of a shared message must own before it is changed. */
    static boolean isNested(Object value) {
        return value instanceof Map || value instanceof List;
    }

    private static final class ReadOnlyMap extends AbstractMap<String, Object> {
        private final Map<String, Object> map;

        ReadOnlyMap(Map<String, Object> map) {
            this.map = map;
        }

        @Override
        public Object get(Object key) {
            return readOnly(map.get(key));
        }

        @Override
        public boolean containsKey(Object key) {
            return map.containsKey(key);
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, Object>> iterator() {
                    Iterator<Entry<String, Object>> entries = map.entrySet().iterator();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return entries.hasNext();
                        }

                        @Override
                        public Entry<String, Object> next() {
                            Entry<String, Object> entry = entries.next();
                            return new SimpleImmutableEntry<>(entry.getKey(), readOnly(entry.getValue()));
                        }
                    };
                }

                @Override
                public int size() {
                    return map.size();
                }
            };
        }
    }

    private static final class ReadOnlyList extends AbstractList<Object> {
        private final List<Object> list;

        ReadOnlyList(List<Object> list) {
            this.list = list;
        }

        @Override
        public Object get(int index) {
            return readOnly(list.get(index));
        }

        @Override
        public int size() {
            return list.size();
        }
    }
}
