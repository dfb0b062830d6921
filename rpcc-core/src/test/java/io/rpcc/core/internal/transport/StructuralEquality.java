package io.rpcc.core.internal.transport;

import io.rpcc.core.ChainState;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Equality of decoded values by content, for round-trip checks: arrays compare element by element,
 * records component by component, and unordered sets and maps by matching entries, because a value
 * read from the wire may hold arrays (identity {@code equals} and {@code hashCode}) anywhere, even
 * as set elements or map keys.
 */
final class StructuralEquality {
    private StructuralEquality() {
    }

    static boolean equal(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null || a.getClass() != b.getClass()) {
            return false;
        }
        if (a.getClass().isArray()) {
            int n = Array.getLength(a);
            if (n != Array.getLength(b)) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (!equal(Array.get(a, i), Array.get(b, i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof ChainState sa) {
            return equal(sa.asMap(), ((ChainState) b).asMap());
        }
        if (a instanceof Record) {
            for (RecordComponent c : a.getClass().getRecordComponents()) {
                if (!equal(component(c, a), component(c, b))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Map<?, ?> ma) {
            Map<?, ?> mb = (Map<?, ?>) b;
            return ma.size() == mb.size() && (a instanceof SortedMap
                    ? equalInOrder(new ArrayList<>(ma.entrySet()), new ArrayList<>(mb.entrySet()))
                    : equalInAnyOrder(new ArrayList<>(ma.entrySet()), new ArrayList<>(mb.entrySet())));
        }
        if (a instanceof Map.Entry<?, ?> ea) {
            Map.Entry<?, ?> eb = (Map.Entry<?, ?>) b;
            return equal(ea.getKey(), eb.getKey()) && equal(ea.getValue(), eb.getValue());
        }
        if (a instanceof Collection<?> ca) {
            Collection<?> cb = (Collection<?>) b;
            return ca.size() == cb.size() && (a instanceof Set && !(a instanceof SortedSet)
                    ? equalInAnyOrder(new ArrayList<>(ca), new ArrayList<>(cb))
                    : equalInOrder(ca, cb));
        }
        return a.equals(b);
    }

    private static boolean equalInOrder(Collection<?> a, Collection<?> b) {
        Iterator<?> ib = b.iterator();
        for (Object x : a) {
            if (!equal(x, ib.next())) {
                return false;
            }
        }
        return true;
    }

    /** Matches every element of {@code a} with a distinct equal element of {@code b} (sizes are equal). */
    private static boolean equalInAnyOrder(List<?> a, List<?> b) {
        List<Object> unmatched = new ArrayList<>(b);
        for (Object x : a) {
            boolean found = false;
            for (Iterator<Object> it = unmatched.iterator(); it.hasNext(); ) {
                if (equal(x, it.next())) {
                    it.remove();
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    private static Object component(RecordComponent c, Object record) {
        Method accessor = c.getAccessor();
        try {
            accessor.setAccessible(true);
            return accessor.invoke(record);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new AssertionError("cannot read " + c.getName() + " of " + record.getClass().getName(), e);
        }
    }
}
