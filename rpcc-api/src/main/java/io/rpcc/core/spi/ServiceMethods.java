package io.rpcc.core.spi;

import io.rpcc.core.ServiceMethod;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link ServiceMethod} method maps to a service function, shared by the server that hosts
 * one and the typed calls of a {@link io.rpcc.core.SequentialChain}: its name, how its arguments
 * become the chain's params (none: {@code null}; one: itself; several: a {@code List} of them in
 * order) and back, and how a result is converted to its return type.
 */
public final class ServiceMethods {
    private ServiceMethods() {
    }

    /** The service function {@code method} stands for: its annotation's value, else its name. */
    public static String name(Method method) {
        ServiceMethod ann = method.getAnnotation(ServiceMethod.class);
        return ann == null || ann.value().isEmpty() ? method.getName() : ann.value();
    }

    /** The params a call with {@code args} passes: {@code null}, the one argument, or a list of them. */
    public static @Nullable Object params(@Nullable Object @Nullable [] args) {
        if (args == null || args.length == 0) {
            return null;
        }
        if (args.length == 1) {
            return args[0];
        }
        return new ArrayList<>(Arrays.asList(args));
    }

    /**
     * Whether {@code method} reads the hop's data stream: its last parameter is an {@link InputStream},
     * which gets the stream; the params go to the parameters before it.
     */
    public static boolean takesStream(Method method) {
        int n = method.getParameterCount();
        return n > 0 && method.getParameterTypes()[n - 1] == InputStream.class;
    }

    /**
     * The arguments of {@code method} for {@code params} (see {@link #params}).
     *
     * @throws IllegalArgumentException if a method of several parameters gets params that are not a
     *     list of as many values
     */
    public static @Nullable Object[] arguments(Method method, @Nullable Object params) {
        return arguments(method, method.getParameterCount(), params);
    }

    /**
     * The arguments of a method that {@link #takesStream}: those of {@code params} for the parameters
     * before the last, then {@code data}.
     *
     * @throws IllegalArgumentException as {@link #arguments(Method, Object)}
     */
    public static @Nullable Object[] arguments(Method method, @Nullable Object params, InputStream data) {
        int n = method.getParameterCount() - 1;
        @Nullable Object[] values = arguments(method, n, params);
        @Nullable Object[] all = Arrays.copyOf(values, n + 1);
        all[n] = data;
        return all;
    }

    private static @Nullable Object[] arguments(Method method, int n, @Nullable Object params) {
        if (n == 0) {
            return new Object[0];
        }
        if (n == 1) {
            return new Object[] {params};
        }
        if (!(params instanceof List<?> list) || list.size() != n) {
            throw new IllegalArgumentException("service function '" + name(method) + "' (" + method.getDeclaringClass()
                    .getName() + "." + method.getName() + ") takes " + n + " parameters, passed as a list of " + n
                    + " values; got " + (params == null ? "null" : params instanceof List<?> l ? "a list of " + l.size()
                    : "a " + params.getClass().getName()));
        }
        return list.toArray();
    }

    /**
     * The {@link ServiceMethod} methods of {@code type}: those it declares and those of the
     * interfaces it implements (its own declaration first), by service function name. A method of
     * the class that implements an annotated interface method is the same service function.
     *
     * @throws IllegalArgumentException if a method is static, or two different methods claim one name
     */
    public static Map<String, Method> of(Class<?> type) {
        Map<String, Method> out = new LinkedHashMap<>();
        for (Method m : type.getDeclaredMethods()) {
            if (m.isAnnotationPresent(ServiceMethod.class)) {
                add(out, m, type);
            }
        }
        Deque<Class<?>> todo = new ArrayDeque<>();
        Set<Class<?>> seen = new HashSet<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            todo.addAll(List.of(c.getInterfaces()));
        }
        while (!todo.isEmpty()) {
            Class<?> i = todo.poll();
            if (!seen.add(i)) {
                continue;
            }
            for (Method m : i.getDeclaredMethods()) {
                if (m.isAnnotationPresent(ServiceMethod.class)) {
                    add(out, m, type);
                }
            }
            todo.addAll(List.of(i.getInterfaces()));
        }
        return out;
    }

    private static void add(Map<String, Method> out, Method m, Class<?> type) {
        if (Modifier.isStatic(m.getModifiers())) {
            throw new IllegalArgumentException("@ServiceMethod " + m + " must be an instance method");
        }
        String name = name(m);
        Method previous = out.get(name);
        if (previous == null) {
            out.put(name, m);
        } else if (!(previous.getName().equals(m.getName())
                && Arrays.equals(previous.getParameterTypes(), m.getParameterTypes()))) {
            throw new IllegalArgumentException("service function '" + name + "' of " + type.getName()
                    + " is declared twice: by " + previous + " and by " + m
                    + "; give one of them another name with @ServiceMethod(\"...\")");
        }
    }

    /**
     * {@code result} as a value of {@code type}: itself, or a number converted to {@code type}'s
     * numeric type (primitive or boxed).
     *
     * @param what the call, for the message
     * @throws ClassCastException if it is not one, naming {@code what}
     * @throws NullPointerException if it is {@code null} and {@code type} is primitive
     */
    public static @Nullable Object convert(@Nullable Object result, Class<?> type, String what) {
        if (type == void.class || type == Void.class) {
            return null;
        }
        if (result == null) {
            if (type.isPrimitive()) {
                throw new NullPointerException(what + " returned null, which a " + type.getName() + " cannot hold");
            }
            return null;
        }
        Class<?> boxed = boxed(type);
        if (boxed.isInstance(result)) {
            return result;
        }
        if (result instanceof Number n) {
            if (boxed == Long.class) {
                return n.longValue();
            } else if (boxed == Integer.class) {
                return n.intValue();
            } else if (boxed == Double.class) {
                return n.doubleValue();
            } else if (boxed == Float.class) {
                return n.floatValue();
            } else if (boxed == Short.class) {
                return n.shortValue();
            } else if (boxed == Byte.class) {
                return n.byteValue();
            }
        }
        throw new ClassCastException(what + " returned a " + result.getClass().getName() + ", not the "
                + type.getName() + " its method declares");
    }

    private static Class<?> boxed(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        return switch (type.getName()) {
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "double" -> Double.class;
            case "float" -> Float.class;
            case "short" -> Short.class;
            case "byte" -> Byte.class;
            case "char" -> Character.class;
            default -> Boolean.class;
        };
    }
}
