package io.rpcc.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A chain's metadata: a small, immutable set of keys with text or byte values that travels in the
 * chain's header from hop to hop, for what concerns every hop rather than one function: trace
 * context, credentials, tenant, request ids. Modelled on gRPC's {@code Metadata}.
 *
 * <pre>{@code
 * ChainCall call = ChainCall.to("gateway", "route").params(order)
 *     .metadata("tenant", "acme")
 *     .metadata("trace-bin", spanContextBytes);
 * // at any hop of the chain
 * String tenant = ChainContext.current().metadata().get("tenant");
 * }</pre>
 *
 * <p>Who writes it: the originator (on the {@code ChainCall} and in its client interceptors); at the
 * servers, only interceptors, around forwarding to the next hop. Service and chaining functions read
 * it; what they compute for later hops goes into the parameters and the {@link ChainState}.
 *
 * <p>Keys are 1 to {@value #MAX_KEY_LENGTH} characters from {@code a-z 0-9 - _ .}; each key holds one
 * value. A metadata holds at most {@value #MAX_ENTRIES} entries and {@value #MAX_BYTES} bytes (keys and
 * text values counted in UTF-8, byte values as they are); going over throws
 * {@link MetadataTooLargeException}. {@link #toString()} shows keys and value sizes, never values,
 * so credentials do not end up in logs.
 */
public final class Metadata {
    /** The most entries a metadata holds. */
    public static final int MAX_ENTRIES = 64;
    /** The most bytes a metadata holds: keys and text values in UTF-8, plus byte values. */
    public static final int MAX_BYTES = 8192;
    /** The longest key, in characters. */
    public static final int MAX_KEY_LENGTH = 128;

    private static final Metadata EMPTY = new Metadata(Map.of(), 0);

    /** String or byte[] values (the arrays are never handed out). */
    private final Map<String, Object> entries;
    private final int bytes;

    private Metadata(Map<String, Object> entries, int bytes) {
        this.entries = entries;
        this.bytes = bytes;
    }

    /** The metadata with no entries. */
    public static Metadata empty() {
        return EMPTY;
    }

    /**
     * This metadata with {@code key} set to the text {@code value} (replacing any value it had).
     *
     * @throws IllegalArgumentException if the key is not valid
     * @throws MetadataTooLargeException if the result would hold too many entries or bytes
     */
    public Metadata with(String key, String value) {
        return put(key, Objects.requireNonNull(value, "value"));
    }

    /**
     * This metadata with {@code key} set to a copy of the bytes {@code value} (replacing any value it had).
     *
     * @throws IllegalArgumentException if the key is not valid
     * @throws MetadataTooLargeException if the result would hold too many entries or bytes
     */
    public Metadata with(String key, byte[] value) {
        return put(key, Objects.requireNonNull(value, "value").clone());
    }

    /** This metadata with every entry of {@code other} added (its values replacing this one's). */
    public Metadata with(Metadata other) {
        Metadata m = this;
        for (Map.Entry<String, Object> e : other.entries.entrySet()) {
            m = m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    /** This metadata without {@code key}. */
    public Metadata without(String key) {
        if (!entries.containsKey(key)) {
            return this;
        }
        Map<String, Object> map = new LinkedHashMap<>(entries);
        Object old = map.remove(key);
        return map.isEmpty() ? EMPTY : new Metadata(Collections.unmodifiableMap(map), bytes - size(key, old));
    }

    private Metadata put(String key, Object value) {
        checkKey(key);
        Object old = entries.get(key);
        int newBytes = bytes - (old == null ? 0 : size(key, old)) + size(key, value);
        int newCount = entries.size() + (old == null ? 1 : 0);
        if (newCount > MAX_ENTRIES || newBytes > MAX_BYTES) {
            throw new MetadataTooLargeException("adding metadata key '" + key + "' would make " + newCount
                    + " entries and " + newBytes + " bytes; metadata holds at most " + MAX_ENTRIES + " entries and "
                    + MAX_BYTES + " bytes (keys and text in UTF-8): carry large values as parameters or state");
        }
        Map<String, Object> map = new LinkedHashMap<>(entries);
        map.put(key, value);
        return new Metadata(Collections.unmodifiableMap(map), newBytes);
    }

    private static int size(String key, Object value) {
        return utf8Length(key) + (value instanceof byte[] b ? b.length : utf8Length((String) value));
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Checks that {@code key} is a valid metadata key.
     *
     * @throws IllegalArgumentException if it is not
     */
    public static void checkKey(String key) {
        if (!isValidKey(key)) {
            throw new IllegalArgumentException("invalid metadata key '" + key + "': use 1 to " + MAX_KEY_LENGTH
                    + " characters from a-z 0-9 - _ .");
        }
    }

    /** Whether {@code key} is a valid metadata key. */
    public static boolean isValidKey(String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
                return false;
            }
        }
        return true;
    }

    /**
     * The text value of {@code key}, or {@code null} if there is none.
     *
     * @throws IllegalStateException if {@code key} holds bytes (read it with {@link #getBytes})
     */
    public @Nullable String get(String key) {
        Object v = entries.get(key);
        if (v instanceof byte[]) {
            throw new IllegalStateException("metadata key '" + key + "' holds bytes: read it with getBytes");
        }
        return (String) v;
    }

    /**
     * A copy of the byte value of {@code key}, or {@code null} if there is none.
     *
     * @throws IllegalStateException if {@code key} holds text (read it with {@link #get})
     */
    public byte @Nullable [] getBytes(String key) {
        Object v = entries.get(key);
        if (v instanceof String) {
            throw new IllegalStateException("metadata key '" + key + "' holds text: read it with get");
        }
        return v == null ? null : ((byte[]) v).clone();
    }

    /** Whether {@code key} has a value. */
    public boolean contains(String key) {
        return entries.containsKey(key);
    }

    /** Whether {@code key} holds bytes (rather than text). */
    public boolean isBytes(String key) {
        return entries.get(key) instanceof byte[];
    }

    /** The keys, in the order they were first added. */
    public Set<String> keys() {
        return entries.keySet();
    }

    /** The number of entries. */
    public int size() {
        return entries.size();
    }

    /** Whether there are no entries. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The bytes this metadata counts against {@link #MAX_BYTES}. */
    public int byteSize() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Metadata m) || m.entries.size() != entries.size()) {
            return false;
        }
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            Object other = m.entries.get(e.getKey());
            boolean same = e.getValue() instanceof byte[] b ? other instanceof byte[] ob && Arrays.equals(b, ob)
                    : e.getValue().equals(other);
            if (!same) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            h += e.getKey().hashCode() ^ (e.getValue() instanceof byte[] b ? Arrays.hashCode(b) : e.getValue().hashCode());
        }
        return h;
    }

    /** The keys and the sizes of their values, e.g. {@code Metadata[tenant=<4 chars>, trace-bin=<16 bytes>]}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Metadata[");
        String sep = "";
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            sb.append(sep).append(e.getKey()).append("=<").append(e.getValue() instanceof byte[] b ? b.length + " bytes"
                    : ((String) e.getValue()).length() + " chars").append('>');
            sep = ", ";
        }
        return sb.append(']').toString();
    }
}
