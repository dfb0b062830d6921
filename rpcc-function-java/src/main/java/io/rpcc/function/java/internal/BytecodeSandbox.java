package io.rpcc.function.java.internal;

import io.rpcc.core.spi.FunctionFailure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.ConstantDynamic;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * The Java sandbox's static half: before a compiled chaining function is loaded, every class it
 * defines is checked against {@link SandboxRules} (every class, method and field it refers to,
 * every invokedynamic bootstrap and method handle, every exception handler) and then instrumented
 * so that {@link Budget} can stop it: a check at each method entry and backward jump, and before
 * each array allocation or sized JDK buffer; JDK calls that could allocate or loop without bound go
 * through guards ({@link SandboxRules#GUARDED_CALLS}, {@link SandboxRules#NUMBER_CLASSES}), and
 * method references to JDK methods through a checked bridge, so that the JDK never loops over them
 * unchecked. Classes that declare {@code finalize}, mutable static fields (static state would
 * outlive the invocation), {@code synchronized} blocks or methods are refused. The JDK has no security
 * manager any more; this is what replaces it for chaining functions.
 */
final class BytecodeSandbox {
    private static final String BUDGET = Type.getInternalName(Budget.class);
    private static final String LAMBDA_FACTORY = "java/lang/invoke/LambdaMetafactory";
    private static final Set<String> AMPLIFIERS = Set.of("pow", "shiftLeft", "shiftRight", "setBit", "clearBit",
            "flipBit", "setScale", "movePointLeft", "movePointRight", "scaleByPowerOfTen");
    /** JDK and rpcc types → themselves and all their supertypes (internal names). */
    private static final Map<String, List<String>> SUPERTYPES = new ConcurrentHashMap<>();

    private static final String SEQUENTIAL_CHAIN = "io/rpcc/core/SequentialChain";
    private static final String SERVICE_METHOD = "io.rpcc.core.ServiceMethod";

    private final Set<String> userTypes;
    /** Where service interfaces are looked up, or null: none is allowed. */
    private final ClassLoader loader;
    /** Internal name → the names of its @ServiceMethod methods if it is a service interface, else an empty set. */
    private final Map<String, Set<String>> serviceInterfaces = new ConcurrentHashMap<>();
    /** Line and block comments (a crude cut: a "//" inside a string literal also ends the line's code). */
    private static final java.util.regex.Pattern COMMENTS = java.util.regex.Pattern.compile("//[^\\n]*|/\\*(?s:.*?)\\*/");

    /** A sandbox that also allows the classes in {@code userTypes} (internal names). */
    BytecodeSandbox(Set<String> userTypes) {
        this(userTypes, null);
    }

    /**
     * A sandbox that also allows the classes in {@code userTypes} (internal names), and the service
     * interfaces that {@code loader} sees (interfaces with {@code @ServiceMethod} methods): their
     * names, and calls to those methods.
     */
    BytecodeSandbox(Set<String> userTypes, ClassLoader loader) {
        this.userTypes = userTypes;
        this.loader = loader;
    }

    /**
     * The {@code @ServiceMethod} methods' names of {@code type} if {@code loader} sees it as an
     * interface that has some (its own or its superinterfaces'), else an empty set. Loaded without
     * initializing it.
     */
    private Set<String> serviceMethods(String type) {
        if (loader == null || type.startsWith("java/") || type.startsWith("javax/") || type.startsWith("jdk/")
                || type.startsWith("sun/")) {
            return Set.of();
        }
        return serviceInterfaces.computeIfAbsent(type, t -> {
            try {
                Class<?> c = Class.forName(t.replace('/', '.'), false, loader);
                if (!c.isInterface() || c.isAnnotation()) {
                    return Set.of();
                }
                Set<String> names = new HashSet<>();
                for (java.lang.reflect.Method m : c.getMethods()) {
                    if (!m.isDefault() && !java.lang.reflect.Modifier.isStatic(m.getModifiers()) && java.util.Arrays
                            .stream(m.getAnnotations()).anyMatch(a -> a.annotationType().getName().equals(SERVICE_METHOD))) {
                        names.add(m.getName());
                    }
                }
                return Set.copyOf(names);
            } catch (ClassNotFoundException | LinkageError e) {
                return Set.of();
            }
        });
    }

    /** Whether the function's top-level class {@code name} is a sequential chain (its own classes {@code own}). */
    private static boolean sequential(String name, Map<String, OwnClass> own) {
        Deque<String> todo = new ArrayDeque<>(List.of(name.replace('.', '/')));
        Set<String> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            String c = todo.poll();
            if (c.equals(SEQUENTIAL_CHAIN)) {
                return true;
            }
            OwnClass oc = own.get(c);
            if (oc != null && seen.add(c)) {
                if (oc.superName() != null) {
                    todo.add(oc.superName());
                }
                todo.addAll(oc.interfaces());
            }
        }
        return false;
    }

    /**
     * Verifies and instruments a function's classes.
     *
     * @param classes binary name → class file, as compiled
     * @return binary name → instrumented class file
     * @throws FunctionFailure with {@link io.rpcc.core.ChainErrorCode#SANDBOX_VIOLATION} naming the first refused use
     */
    Map<String, byte[]> transform(String functionName, Map<String, byte[]> classes) {
        return transform(functionName, classes, null);
    }

    /**
     * As {@link #transform(String, Map)}; {@code source} (if not null) lets a refusal of a type that
     * the source never names say that javac inferred it, and how to avoid that.
     */
    Map<String, byte[]> transform(String functionName, Map<String, byte[]> classes, String source) {
        Map<String, OwnClass> own = new HashMap<>();
        Map<String, ClassReader> readers = new HashMap<>(); // each class file parsed once for both passes
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            ClassReader reader = new ClassReader(e.getValue());
            readers.put(e.getKey(), reader);
            Set<String> methods = new HashSet<>();
            reader.accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    methods.add(name + descriptor);
                    return null;
                }
            }, ClassReader.SKIP_CODE);
            own.put(e.getKey().replace('.', '/'), new OwnClass(reader.getAccess(), reader.getSuperName(),
                    List.of(reader.getInterfaces()), methods));
        }
        Map<String, byte[]> out = new HashMap<>();
        boolean deterministic = sequential(functionName, own);
        for (Map.Entry<String, ClassReader> e : readers.entrySet()) {
            ClassReader reader = e.getValue();
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new Verifier(functionName, own, source, deterministic, new Instrumenter(writer, own.keySet())), 0);
            out.put(e.getKey(), writer.toByteArray());
        }
        return out;
    }

    /** What the verifier needs to know of one of the function's own classes. */
    private record OwnClass(int access, String superName, List<String> interfaces, Set<String> methods) {
    }

    /** {@code type} and its supertypes, for a JDK or rpcc type. */
    private static List<String> supertypes(String type) {
        return SUPERTYPES.computeIfAbsent(type, t -> {
            Set<String> out = new LinkedHashSet<>();
            out.add(t);
            out.add("java/lang/Object");
            try {
                Deque<Class<?>> todo = new ArrayDeque<>();
                todo.add(Class.forName(t.replace('/', '.'), false, BytecodeSandbox.class.getClassLoader()));
                while (!todo.isEmpty()) {
                    Class<?> c = todo.poll();
                    out.add(Type.getInternalName(c));
                    if (c.getSuperclass() != null) {
                        todo.add(c.getSuperclass());
                    }
                    todo.addAll(List.of(c.getInterfaces()));
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // an unknown type: only its own name is checked
            }
            return List.copyOf(out);
        });
    }

    private final class Verifier extends ClassVisitor {
        private final String function;
        private final Map<String, OwnClass> own;
        private final String source;
        /** A sequential chain's: clocks, randomness and hop-dependent context are refused too. */
        private final boolean deterministic;
        private String where = "";
        private int line;
        private boolean isEnum;

        Verifier(String function, Map<String, OwnClass> own, String source, boolean deterministic, ClassVisitor next) {
            super(Opcodes.ASM9, next);
            this.function = function;
            this.own = own;
            this.source = source;
            this.deterministic = deterministic;
        }

        private FunctionFailure refuse(String rule, String what) {
            return refuse(rule, what, "");
        }

        private FunctionFailure refuse(String rule, String what, String hint) {
            return FunctionFailure.sandboxViolation(rule, "chaining function " + function + " uses " + what
                    + (where.isEmpty() ? "" : " in " + where) + (line > 0 ? " (line " + line + ")" : "")
                    + ", which the sandbox does not allow" + hint, false);
        }

        /**
         * The hint for a refused class that the source never names: javac put it there, as the type
         * it inferred for an expression (the common supertype of {@code List.of("a", 1L)}'s values is
         * {@code Serializable & Comparable<...>}).
         */
        private String inferredHint(String className) {
            if (source == null) {
                return "";
            }
            String simple = className.substring(className.lastIndexOf('.') + 1);
            simple = simple.substring(simple.lastIndexOf('$') + 1);
            String code = COMMENTS.matcher(source).replaceAll(" "); // a comment that names it does not count
            if (java.util.regex.Pattern.compile("\\b" + java.util.regex.Pattern.quote(simple) + "\\b").matcher(code).find()) {
                return "";
            }
            return ". The source does not name " + simple + ": javac inferred it as the type of an expression"
                    + (line > 0 ? " on line " + line : "") + ", typically the common supertype of values of different "
                    + "types (List.of(\"a\", 1L) is a List<Serializable & Comparable<...>>). Say the type you mean: "
                    + "List.<Object>of(...), Map.<String, Object>of(...), or a variable declared as Object instead of var";
        }

        void checkClass(String internalName) {
            String c = internalName;
            while (c.startsWith("[")) {
                c = c.substring(1);
            }
            if (c.length() == 1) {
                return; // primitive array
            }
            if (c.startsWith("L") && c.endsWith(";")) {
                c = c.substring(1, c.length() - 1);
            }
            if (own.containsKey(c) || userTypes.contains(c) || SandboxRules.CLASSES.contains(c)
                    || !serviceMethods(c).isEmpty()) {
                return;
            }
            for (String p : SandboxRules.PACKAGES) {
                if (c.startsWith(p) && c.indexOf('/', p.length()) < 0) {
                    return;
                }
            }
            throw refuse(SandboxRules.ruleFor(c), c.replace('/', '.'), inferredHint(c.replace('/', '.')));
        }

        void checkDescriptor(String descriptor) {
            Type t = Type.getType(descriptor);
            if (t.getSort() == Type.METHOD) {
                for (Type a : t.getArgumentTypes()) {
                    checkType(a);
                }
                checkType(t.getReturnType());
            } else {
                checkType(t);
            }
        }

        private void checkType(Type t) {
            if (t.getSort() == Type.ARRAY) {
                checkType(t.getElementType());
            } else if (t.getSort() == Type.OBJECT) {
                checkClass(t.getInternalName());
            }
        }

        /** Whether a field of type {@code descriptor} holds a value that cannot change. */
        private boolean immutable(String descriptor) {
            Type t = Type.getType(descriptor);
            if (t.getSort() != Type.OBJECT) {
                return t.getSort() != Type.ARRAY;
            }
            String c = t.getInternalName();
            OwnClass oc = own.get(c);
            return SandboxRules.IMMUTABLE.contains(c) || (oc != null && (oc.access() & Opcodes.ACC_ENUM) != 0);
        }

        /** Checks a use of field {@code name} ({@code descriptor} null) or method {@code name descriptor} of {@code owner}. */
        void checkMember(String owner, String name, String descriptor) {
            if (owner.startsWith("[")) {
                checkClass(owner);
                return; // clone(), length
            }
            checkClass(owner);
            if (deterministic) {
                String rule = SandboxRules.nondeterministic(owner, name);
                if (rule != null) {
                    throw refuse("nondeterminism", owner.replace('/', '.') + "." + name, " in a sequential chain, "
                            + "which must make the same calls each time it is replayed: " + rule);
                }
            }
            if (own.containsKey(owner)) {
                if (descriptor != null) {
                    for (String inherited : inheritedFrom(owner, name + descriptor)) {
                        checkInherited(inherited, owner, name, descriptor);
                    }
                }
                return;
            }
            if (userTypes.contains(owner)) {
                return;
            }
            Set<String> service = serviceMethods(owner);
            if (!service.isEmpty()) {
                if (descriptor == null || !service.contains(name)) {
                    throw refuse("not-allowed", owner.replace('/', '.') + "." + name, "; of a service interface a "
                            + "chaining function may call only the @ServiceMethod methods, on a view from Hops.at");
                }
                return;
            }
            Set<String> only = SandboxRules.ONLY_MEMBERS.get(owner);
            if (only != null && !only.contains(name)) {
                throw refuse(SandboxRules.ruleForMember(owner, name), owner.replace('/', '.') + "." + name);
            }
            checkInherited(owner, owner, name, descriptor);
        }

        /** Refuses {@code name} if {@code type} or one of its supertypes denies it. */
        private void checkInherited(String type, String owner, String name, String descriptor) {
            for (String t : supertypes(type)) {
                String rule = SandboxRules.DENIED_MEMBERS.get(t + "." + name);
                if (rule == null && descriptor != null) {
                    rule = SandboxRules.DENIED_MEMBERS.get(t + "." + name + descriptor);
                }
                if (rule != null) {
                    throw refuse(rule, owner.replace('/', '.') + "." + name);
                }
            }
        }

        /**
         * The JDK types from which own class {@code owner} would inherit method {@code nameDesc}:
         * none if an own class on the way declares it.
         */
        private List<String> inheritedFrom(String owner, String nameDesc) {
            List<String> out = new ArrayList<>();
            Deque<String> todo = new ArrayDeque<>(List.of(owner));
            Set<String> seen = new HashSet<>();
            while (!todo.isEmpty()) {
                String c = todo.poll();
                if (!seen.add(c)) {
                    continue;
                }
                OwnClass oc = own.get(c);
                if (oc == null) {
                    out.add(c);
                } else if (oc.methods().contains(nameDesc)) {
                    return List.of();
                } else {
                    if (oc.superName() != null) {
                        todo.add(oc.superName());
                    }
                    todo.addAll(oc.interfaces());
                }
            }
            return out;
        }

        void checkHandle(Handle h) {
            checkMember(h.getOwner(), h.getName(), h.getTag() <= Opcodes.H_PUTSTATIC ? null : h.getDesc());
            checkDescriptor(h.getDesc());
        }

        void checkConstant(Object value) {
            if (value instanceof Type t) {
                if (t.getSort() == Type.METHOD) {
                    checkDescriptor(t.getDescriptor());
                } else {
                    checkType(t);
                }
            } else if (value instanceof Handle h) {
                checkHandle(h);
            } else if (value instanceof ConstantDynamic) {
                throw refuse("method-handles", "a dynamic constant");
            }
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            where = name.replace('/', '.');
            isEnum = (access & Opcodes.ACC_ENUM) != 0;
            if (superName != null && SandboxRules.NUMBER_CLASSES.contains(superName)) {
                throw refuse("cpu-time", "a subclass of " + superName.replace('/', '.') + " (calls on it would pass "
                        + "the sandbox's bounds on numbers); use the number itself");
            }
            if (superName != null) {
                checkClass(superName);
            }
            if (interfaces != null) {
                for (String i : interfaces) {
                    checkClass(i);
                }
            }
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            checkDescriptor(descriptor);
            boolean isStatic = (access & Opcodes.ACC_STATIC) != 0;
            boolean synthetic = (access & (Opcodes.ACC_SYNTHETIC | Opcodes.ACC_ENUM)) != 0;
            if ((isStatic || isEnum) && !synthetic) { // an enum's constants are static state too
                if ((access & Opcodes.ACC_FINAL) == 0) {
                    throw refuse("static-state", "a non-final " + (isStatic ? "static" : "enum") + " field " + name
                            + " (state kept across invocations); make it final, or keep the state in ChainState");
                }
                if (!immutable(descriptor)) {
                    throw refuse("static-state", "a " + (isStatic ? "static" : "enum") + " field " + name + " of type "
                            + Type.getType(descriptor).getClassName() + ", which can change across invocations; "
                            + "use a primitive, String, number, java.time or own enum type, or build the value per call");
                }
            }
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            if ((access & Opcodes.ACC_NATIVE) != 0) {
                throw refuse("native-code", "a native method " + name);
            }
            if (name.equals("finalize") && descriptor.equals("()V")) {
                throw refuse("finalizer", "a finalize() method (it would run on the JVM's finalizer thread, "
                        + "outside the budget)");
            }
            if ((access & Opcodes.ACC_SYNCHRONIZED) != 0) {
                throw refuse("threads", "a synchronized method " + name + " (it locks " + ((access & Opcodes.ACC_STATIC) != 0
                        ? "the class, shared by every invocation" : "its object") + "; chaining functions run on one thread)");
            }
            checkDescriptor(descriptor);
            String method = where + "." + name;
            line = 0;
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            return new MethodVisitor(Opcodes.ASM9, next) {
                @Override
                public void visitLineNumber(int lineNumber, Label start) {
                    line = lineNumber;
                    super.visitLineNumber(lineNumber, start);
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    String saved = where;
                    where = method;
                    checkMember(owner, name, desc);
                    where = saved;
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String name, String desc) {
                    String saved = where;
                    where = method;
                    checkMember(owner, name, null);
                    checkDescriptor(desc);
                    where = saved;
                    super.visitFieldInsn(opcode, owner, name, desc);
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    String saved = where;
                    where = method;
                    checkClass(type);
                    where = saved;
                    super.visitTypeInsn(opcode, type);
                }

                @Override
                public void visitLdcInsn(Object value) {
                    String saved = where;
                    where = method;
                    checkConstant(value);
                    where = saved;
                    super.visitLdcInsn(value);
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
                    String saved = where;
                    where = method;
                    if (!SandboxRules.BOOTSTRAPS.contains(bsm.getOwner())) {
                        throw refuse("method-handles", "invokedynamic with bootstrap " + bsm.getOwner().replace('/', '.')
                                + "." + bsm.getName());
                    }
                    checkDescriptor(desc);
                    for (Object a : args) {
                        checkConstant(a);
                    }
                    where = saved;
                    super.visitInvokeDynamicInsn(name, desc, bsm, args);
                }

                @Override
                public void visitInsn(int opcode) {
                    if (opcode == Opcodes.MONITORENTER) {
                        where = method;
                        throw refuse("threads", "a synchronized block (chaining functions run on one thread)");
                    }
                    super.visitInsn(opcode);
                }

                @Override
                public void visitMultiANewArrayInsn(String descriptor, int dims) {
                    where = method;
                    throw refuse("memory", "a multi-dimensional array (" + descriptor + "); nest one-dimensional arrays");
                }

                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    if (type != null && SandboxRules.UNCATCHABLE.contains(type)) {
                        where = method;
                        throw refuse("catch-error", "catch (" + type.replace('/', '.') + ")");
                    }
                    super.visitTryCatchBlock(start, end, handler, type);
                }
            };
        }
    }

    /**
     * Adds the budget checks; runs after the verifier, so user code never sees {@link Budget}. Calls
     * to guarded JDK methods go to {@link Budget}'s guards instead; calls on numbers, and method
     * references to JDK methods, to bridges it adds to the class (a method reference would otherwise
     * let the JDK loop over a JDK method with no check at all).
     */
    private static final class Instrumenter extends ClassVisitor {
        private final Set<String> own;
        private final Map<String, Bridge> bridges = new LinkedHashMap<>();
        private final Deque<Bridge> pending = new ArrayDeque<>();
        private String className;
        private boolean isInterface;

        /**
         * A static method added to the class, {@code name} with descriptor {@code desc}, that calls
         * {@code target} (a JDK method or constructor): {@code number} ones check the numbers first and
         * are not instrumented; the others are (a tick, guards).
         */
        private record Bridge(String name, String desc, Handle target, boolean number) {
        }

        Instrumenter(ClassVisitor next, Set<String> own) {
            super(Opcodes.ASM9, next);
            this.own = own;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName,
                          String[] interfaces) {
            className = name;
            isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        /** The bridge to {@code target} (a {@code number} one or not), added to the class the first time it is asked for. */
        private Bridge bridge(Handle target, boolean number) {
            String owner = target.getOwner();
            String targetDesc = target.getDesc();
            String key = target.getTag() + " " + number + " " + owner + "." + target.getName() + targetDesc;
            Bridge b = bridges.get(key);
            if (b == null) {
                String desc = switch (target.getTag()) {
                    case Opcodes.H_INVOKESTATIC -> targetDesc;
                    case Opcodes.H_NEWINVOKESPECIAL ->
                            Type.getMethodDescriptor(Type.getObjectType(owner), Type.getArgumentTypes(targetDesc));
                    default -> "(" + Type.getObjectType(owner).getDescriptor() + targetDesc.substring(1);
                };
                b = new Bridge("rpcc$bridge$" + bridges.size(), desc, target, number);
                bridges.put(key, b);
                pending.add(b);
            }
            return b;
        }

        @Override
        public void visitEnd() {
            while (!pending.isEmpty()) {
                Bridge b = pending.poll();
                int access = Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC | Opcodes.ACC_SYNTHETIC;
                MethodVisitor mv = b.number() ? cv.visitMethod(access, b.name(), b.desc(), null, null)
                        : visitMethod(access, b.name(), b.desc(), null, null);
                mv.visitCode();
                Type[] args = Type.getArgumentTypes(b.desc());
                Handle target = b.target();
                if (b.number()) {
                    long bound = operandBits(target.getOwner(), target.getName(), args);
                    for (int i = 0, slot = 0; i < args.length; slot += args[i].getSize(), i++) {
                        if (args[i].getSort() == Type.OBJECT && SandboxRules.NUMBER_CLASSES.contains(args[i].getInternalName())) {
                            mv.visitVarInsn(Opcodes.ALOAD, slot);
                            mv.visitLdcInsn(bound);
                            mv.visitLdcInsn(target.getName());
                            mv.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "number", "(Ljava/lang/Object;JLjava/lang/String;)V",
                                    false);
                        }
                    }
                    if (AMPLIFIERS.contains(target.getName()) && args.length > 1 && args[1].getSort() == Type.INT) {
                        mv.visitVarInsn(Opcodes.ALOAD, 0);
                        mv.visitVarInsn(Opcodes.ILOAD, 1);
                        mv.visitLdcInsn(target.getName());
                        mv.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "amplify", "(Ljava/lang/Object;ILjava/lang/String;)V",
                                false);
                    }
                }
                if (target.getTag() == Opcodes.H_NEWINVOKESPECIAL) {
                    mv.visitTypeInsn(Opcodes.NEW, target.getOwner());
                    mv.visitInsn(Opcodes.DUP);
                }
                for (int i = 0, slot = 0; i < args.length; slot += args[i].getSize(), i++) {
                    mv.visitVarInsn(args[i].getOpcode(Opcodes.ILOAD), slot);
                }
                int opcode = switch (target.getTag()) {
                    case Opcodes.H_INVOKESTATIC -> Opcodes.INVOKESTATIC;
                    case Opcodes.H_INVOKEINTERFACE -> Opcodes.INVOKEINTERFACE;
                    case Opcodes.H_NEWINVOKESPECIAL -> Opcodes.INVOKESPECIAL;
                    default -> Opcodes.INVOKEVIRTUAL;
                };
                mv.visitMethodInsn(opcode, target.getOwner(), target.getName(), target.getDesc(), target.isInterface());
                mv.visitInsn(Type.getReturnType(b.desc()).getOpcode(Opcodes.IRETURN));
                mv.visitMaxs(0, 0);
                mv.visitEnd();
            }
            super.visitEnd();
        }

        /**
         * The largest operands (bits) of call {@code name} on a number: {@link Budget#MAX_NUMBER_BITS}
         * for linear-time calls without a {@code MathContext}, else the operation's tighter bound.
         */
        private static long operandBits(String owner, String name, Type[] args) {
            boolean rounds = false;
            for (Type a : args) {
                rounds |= a.getSort() == Type.OBJECT && a.getInternalName().equals("java/math/MathContext");
            }
            if (!rounds && SandboxRules.LINEAR_NUMBER_OPERATIONS.getOrDefault(owner, Set.of()).contains(name)) {
                return Budget.MAX_NUMBER_BITS;
            }
            return SandboxRules.NUMBER_OPERATION_BITS.getOrDefault(name, Budget.OPERATION_BITS);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            return new MethodVisitor(Opcodes.ASM9, next) {
                private final Set<Label> seen = new HashSet<>();

                private void tick() {
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "tick", "()V", false);
                }

                private void checkSize(int elementBytes) { // stack: ..., count → ..., count
                    super.visitInsn(Opcodes.DUP);
                    super.visitIntInsn(Opcodes.BIPUSH, elementBytes);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, "array", "(II)V", false);
                }

                @Override
                public void visitCode() {
                    super.visitCode();
                    tick();
                }

                @Override
                public void visitLabel(Label label) {
                    seen.add(label);
                    super.visitLabel(label);
                }

                @Override
                public void visitJumpInsn(int opcode, Label label) {
                    if (seen.contains(label)) {
                        tick();
                    }
                    super.visitJumpInsn(opcode, label);
                }

                @Override
                public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
                    tick();
                    super.visitTableSwitchInsn(min, max, dflt, labels);
                }

                @Override
                public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
                    tick();
                    super.visitLookupSwitchInsn(dflt, keys, labels);
                }

                @Override
                public void visitIntInsn(int opcode, int operand) {
                    if (opcode == Opcodes.NEWARRAY) {
                        checkSize(switch (operand) {
                            case Opcodes.T_BOOLEAN, Opcodes.T_BYTE -> 1;
                            case Opcodes.T_CHAR, Opcodes.T_SHORT -> 2;
                            case Opcodes.T_INT, Opcodes.T_FLOAT -> 4;
                            default -> 8;
                        });
                    }
                    super.visitIntInsn(opcode, operand);
                }

                @Override
                public void visitTypeInsn(int opcode, String type) {
                    if (opcode == Opcodes.ANEWARRAY) {
                        checkSize(8);
                    }
                    super.visitTypeInsn(opcode, type);
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    if (SandboxRules.GUARDED_CALLS.contains(owner + "." + name + desc)) {
                        String guard = opcode == Opcodes.INVOKESTATIC ? desc
                                : "(" + Type.getObjectType(owner).getDescriptor() + desc.substring(1);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, name, guard, false);
                        return;
                    }
                    String numberCheck = SandboxRules.NUMBER_CONSTRUCTOR_CHECKS.get(owner + "." + name + desc);
                    if (numberCheck != null) {
                        copyCheckedArgument(desc);
                        int paren = numberCheck.indexOf('(');
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, BUDGET, numberCheck.substring(0, paren),
                                numberCheck.substring(paren), false);
                    }
                    if (opcode == Opcodes.INVOKEVIRTUAL && SandboxRules.NUMBER_CLASSES.contains(owner)) {
                        Bridge b = bridge(new Handle(Opcodes.H_INVOKEVIRTUAL, owner, name, desc, false), true);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, className, b.name(), b.desc(), isInterface);
                        return;
                    }
                    Integer bytes = SandboxRules.SIZED_CALLS.get(owner + "." + name + desc);
                    if (bytes != null) {
                        checkSize(bytes);
                    }
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                }

                /**
                 * Copies the argument a {@link SandboxRules#NUMBER_CONSTRUCTOR_CHECKS} entry checks to
                 * the top of the stack (all arguments there take one slot).
                 */
                private void copyCheckedArgument(String desc) {
                    Type[] args = Type.getArgumentTypes(desc);
                    Type last = args[args.length - 1];
                    if (args.length == 3 && args[0].getInternalName().equals("java/math/BigInteger")) {
                        super.visitInsn(Opcodes.DUP2_X1); // a b c → b c a b c
                        super.visitInsn(Opcodes.POP2); // → b c a
                        super.visitInsn(Opcodes.DUP_X2); // → a b c a
                    } else if (last.getSort() == Type.INT && args[0].getSort() == Type.OBJECT
                            && args[0].getInternalName().equals("java/lang/String")
                            || last.getSort() == Type.OBJECT && last.getInternalName().equals("java/math/MathContext")) {
                        super.visitInsn(Opcodes.DUP2); // a b → a b a b
                        super.visitInsn(Opcodes.POP); // → a b a
                    } else {
                        super.visitInsn(Opcodes.DUP);
                    }
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
                    Object[] bsmArgs = args;
                    if (bsm.getOwner().equals(LAMBDA_FACTORY) && args.length > 1 && args[1] instanceof Handle h
                            && !own.contains(h.getOwner()) && h.getTag() != Opcodes.H_INVOKESPECIAL) {
                        Bridge b = bridge(h, false);
                        bsmArgs = args.clone();
                        bsmArgs[1] = new Handle(Opcodes.H_INVOKESTATIC, className, b.name(), b.desc(), isInterface);
                    }
                    super.visitInvokeDynamicInsn(name, desc, bsm, bsmArgs);
                }
            };
        }
    }
}
