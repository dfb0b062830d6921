package io.rpcc.function.java.internal;

import io.rpcc.core.NextHop;
import io.rpcc.core.spi.SandboxViolation;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Refuses what a sandboxed function returns if it holds an object of one of the function's own
 * classes (a record, a lambda, a collection subclass...): rpcc serializes, compares and prints the
 * result, the next hop's parameters and the chain state after the function has returned, outside
 * its budget, and must never run the function's code then. Runs inside the budget, so the walk
 * (through collections, maps, arrays and records) is bounded by it.
 */
final class OutputCheck {
    /** The accessors of each record type, looked up once. */
    private static final ClassValue<Method[]> ACCESSORS = new ClassValue<>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            Method[] accessors = new Method[components.length];
            for (int i = 0; i < components.length; i++) {
                accessors[i] = components[i].getAccessor();
                accessors[i].trySetAccessible();
            }
            return accessors;
        }
    };

    private OutputCheck() {
    }

    /** Returns {@code next} if none of its values is an instance of a class {@code loader} defined. */
    static NextHop check(NextHop next, ClassLoader loader) {
        if (next == null) {
            return null;
        }
        ArrayList<Object> todo = new ArrayList<>(); // a stack; values may be null
        switch (next) {
            case NextHop.End end -> todo.add(end.result());
            case NextHop.Call call -> {
                todo.add(call.params());
                if (call.state() != null) {
                    todo.addAll(call.state().asMap().values());
                }
            }
            case NextHop.Split split -> {
                todo.addAll(split.state().asMap().values());
                for (NextHop.Call call : split.branches()) {
                    todo.add(call.params());
                    todo.addAll(call.state().asMap().values());
                }
            }
        }
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (!todo.isEmpty()) {
            Object o = todo.removeLast();
            if (o == null || isLeaf(o) || !seen.add(o)) {
                continue;
            }
            Class<?> type = o.getClass();
            Class<?> element = type;
            while (element.isArray()) {
                element = element.getComponentType();
            }
            if (element.getClassLoader() == loader) {
                throw new SandboxViolation("output-type", "chaining function returned an object of its own class "
                        + element.getName() + "; results, parameters and state must be of JDK or registered types");
            }
            if (o instanceof Object[] array) {
                for (Object item : array) {
                    addUnlessLeaf(todo, item);
                }
            } else if (o instanceof Collection<?> c) {
                for (Object item : c) { // (a JDK collection: its class was checked above)
                    addUnlessLeaf(todo, item);
                }
            } else if (o instanceof Map<?, ?> m) {
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    todo.add(e.getKey());
                    todo.add(e.getValue());
                }
            } else if (o instanceof Map.Entry<?, ?> e) {
                todo.add(e.getKey());
                todo.add(e.getValue());
            } else if (type.isRecord()) {
                for (Method accessor : ACCESSORS.get(type)) {
                    try {
                        todo.add(accessor.invoke(o));
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        // an inaccessible component: serialization will refuse it if it must
                    }
                }
            }
        }
        return next;
    }

    /**
     * Whether {@code o} is a value of a final JDK class that holds no other object (a string, a boxed
     * number or boolean): never a class of the function's loader, nothing to walk into, so it needs
     * no place in the identity set (a static route's state is mostly strings).
     */
    private static boolean isLeaf(Object o) {
        return o instanceof String || o instanceof Integer || o instanceof Long || o instanceof Boolean;
    }

    private static void addUnlessLeaf(ArrayList<Object> todo, Object item) {
        if (item != null && !isLeaf(item)) {
            todo.add(item);
        }
    }
}
