package io.rpcc.js.internal;

import io.rpcc.core.ChainState;
import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.SandboxViolation;
import java.math.BigDecimal;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.graalvm.polyglot.Value;
import org.graalvm.polyglot.proxy.ProxyArray;
import org.graalvm.polyglot.proxy.ProxyObject;

/**
 * The mapping between the chain's Java values and JavaScript values.
 *
 * <ul>
 *   <li>Java → JS: {@code null}, strings, booleans and the boxed primitive numbers as themselves;
 *       lists as read-only arrays; maps, records and the chain state as read-only objects; any
 *       other object (a {@code BigDecimal} or an {@code AtomicLong} too: they are not plain
 *       numbers) as an opaque value that JavaScript can pass on but not look into. No Java object
 *       reaches JavaScript itself: views expose data, never methods.</li>
 *   <li>JS → Java: {@code null}/{@code undefined} → {@code null}; strings, booleans; numbers →
 *       {@code Integer} if they fit, else {@code Long}, else {@code Double}; arrays → {@code ArrayList};
 *       plain objects → {@code LinkedHashMap<String, Object>}; a view of a Java value → that value
 *       itself (so records pass through unchanged). Functions cannot leave JavaScript. The
 *       conversion runs inside the invocation's budget, and a value larger than its share of the
 *       memory limit is refused before it is built.</li>
 * </ul>
 *
 * <p>Refusals (a reflective member name, a write to a Java value) are recorded in the
 * {@link Invocation}, so catching the error does not hide them.
 */
final class JsValues {
    /** Members of Java objects that scripts often try, to reach reflection: refused loudly. */
    private static final Set<String> REFLECTIVE = Set.of("getClass", "class", "getClassLoader", "forName",
            "getDeclaredMethods", "getMethods", "getDeclaredFields", "wait", "notify", "notifyAll", "__proto__");
    private static final int MAX_DEPTH = 64;

    private JsValues() {
    }

    static Object toGuest(Object v, Invocation inv) {
        if (v == null || v instanceof String || v instanceof Boolean || v instanceof Integer || v instanceof Long
                || v instanceof Double || v instanceof Float || v instanceof Short || v instanceof Byte) {
            return v;
        }
        if (v instanceof Character c) {
            return String.valueOf(c);
        }
        if (v instanceof List<?> l) {
            return new ListView(l, inv);
        }
        if (v instanceof Map<?, ?> m) {
            return new MapView(m, inv);
        }
        if (v instanceof ChainState s) {
            return new MapView(s.asMap(), inv);
        }
        if (v instanceof Record r) {
            return new RecordView(r, inv);
        }
        return new OpaqueView(v, inv);
    }

    static Object toHost(Value v, Invocation inv) {
        return toHost(v, inv, 0);
    }

    private static Object toHost(Value v, Invocation inv, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("value nested deeper than " + MAX_DEPTH + " levels (a cycle?)");
        }
        inv.convert(1);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isProxyObject() && v.asProxyObject() instanceof GuestView view) {
            return view.host();
        }
        if (v.isBoolean()) {
            return v.asBoolean();
        }
        if (v.isString()) {
            return v.asString();
        }
        if (v.isNumber()) {
            if (v.fitsInInt()) {
                return v.asInt();
            }
            if (v.fitsInLong()) {
                return v.asLong();
            }
            return v.asDouble();
        }
        if (v.hasArrayElements()) {
            long size = v.getArraySize();
            inv.convert(size); // refused here if too large, before anything is built
            List<Object> out = new ArrayList<>((int) size);
            for (long i = 0; i < size; i++) {
                out.add(toHost(v.getArrayElement(i), inv, depth + 1));
            }
            return out;
        }
        if (v.canExecute()) {
            throw new IllegalArgumentException("a JavaScript function cannot leave the chaining function");
        }
        if (v.hasMembers()) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (String key : v.getMemberKeys()) {
                inv.convert(1);
                out.put(key, toHost(v.getMember(key), inv, depth + 1));
            }
            return out;
        }
        throw new IllegalArgumentException("cannot turn JavaScript value " + FunctionText.bounded(v.toString())
                + " into a Java value");
    }

    /** The chain state from a script's object ({@code undefined}: empty). */
    static ChainState toState(Value v, Invocation inv) {
        if (v == null || v.isNull()) {
            return ChainState.empty();
        }
        Object host = toHost(v, inv);
        if (host instanceof ChainState s) {
            return s;
        }
        if (host instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, val) -> copy.put(String.valueOf(k), val));
            return ChainState.fromMap(copy);
        }
        throw new IllegalArgumentException("the state must be an object, got " + FunctionText.bounded(v.toString()));
    }

    static void refuseReflective(String key, Invocation inv) {
        if (REFLECTIVE.contains(key)) {
            throw inv.refuse("reflection", "chaining function tried '" + FunctionText.bounded(key)
                    + "' on a Java value");
        }
    }

    /** Java values are read-only: changing one (or its prototype) is tampering with the host. */
    static SandboxViolation tampering(String key, Invocation inv) {
        return inv.refuse("host-access", "chaining function tried to change '" + FunctionText.bounded(key)
                + "' of a Java value");
    }

    /**
     * A read-only JavaScript object over a Java value: reflective member names are refused, writes
     * are tampering, and the value itself comes back to Java.
     */
    interface ReadOnlyObject extends ProxyObject, GuestView {
        /** The invocation that refusals are recorded in. */
        Invocation invocation();

        /** The member's value for JavaScript, or {@code null} (default: no members). */
        default Object member(String key) {
            return null;
        }

        /** The member names (default: none). */
        default List<String> keys() {
            return List.of();
        }

        @Override
        default Object getMember(String key) {
            refuseReflective(key, invocation());
            return member(key);
        }

        @Override
        default Object getMemberKeys() {
            return ProxyArray.fromList(new ArrayList<>(keys()));
        }

        @Override
        default boolean hasMember(String key) {
            refuseReflective(key, invocation());
            return keys().contains(key);
        }

        @Override
        default void putMember(String key, Value value) {
            throw tampering(key, invocation());
        }

        @Override
        default boolean removeMember(String key) {
            throw tampering(key, invocation());
        }
    }

    private record ListView(List<?> list, Invocation invocation) implements ProxyArray, ReadOnlyObject {
        @Override
        public Object get(long index) {
            return index >= 0 && index < list.size() ? toGuest(list.get((int) index), invocation) : null;
        }

        @Override
        public void set(long index, Value value) {
            throw tampering(String.valueOf(index), invocation);
        }

        @Override
        public boolean remove(long index) {
            throw tampering(String.valueOf(index), invocation);
        }

        @Override
        public long getSize() {
            return list.size();
        }

        @Override
        public Object host() {
            return list;
        }
    }

    private record MapView(Map<?, ?> map, Invocation invocation) implements ReadOnlyObject {
        @Override
        public Object member(String key) {
            return toGuest(map.get(key), invocation);
        }

        @Override
        public List<String> keys() {
            List<String> keys = new ArrayList<>();
            for (Object k : map.keySet()) {
                keys.add(String.valueOf(k));
            }
            return keys;
        }

        @Override
        public Object host() {
            return map;
        }
    }

    private record RecordView(Record record, Invocation invocation) implements ReadOnlyObject {
        @Override
        public Object member(String key) {
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                if (c.getName().equals(key)) {
                    try {
                        c.getAccessor().setAccessible(true);
                        return toGuest(c.getAccessor().invoke(record), invocation);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException("cannot read " + key + " of a record");
                    }
                }
            }
            return null;
        }

        @Override
        public List<String> keys() {
            List<String> keys = new ArrayList<>();
            for (RecordComponent c : record.getClass().getRecordComponents()) {
                keys.add(c.getName());
            }
            return keys;
        }

        @Override
        public Object host() {
            return record;
        }
    }

    private record OpaqueView(Object value, Invocation invocation) implements ReadOnlyObject {
        @Override
        public Object host() {
            return value;
        }
    }
}
