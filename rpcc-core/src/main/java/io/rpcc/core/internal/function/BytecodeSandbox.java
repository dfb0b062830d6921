package io.rpcc.core.internal.function;

import io.rpcc.core.internal.wire.ErrorCode;
import io.rpcc.core.internal.wire.HopFailure;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
 * each array allocation or sized JDK buffer. The JDK has no security manager any more; this is what
 * replaces it for chaining functions.
 */
final class BytecodeSandbox {
    private static final String BUDGET = Type.getInternalName(Budget.class);

    private final Set<String> userTypes;

    /** A sandbox that also allows the classes in {@code userTypes} (internal names). */
    BytecodeSandbox(Set<String> userTypes) {
        this.userTypes = userTypes;
    }

    /**
     * Verifies and instruments a function's classes.
     *
     * @param classes binary name → class file, as compiled
     * @return binary name → instrumented class file
     * @throws HopFailure with {@link ErrorCode#SANDBOX_VIOLATION} naming the first refused use
     */
    Map<String, byte[]> transform(String functionName, Map<String, byte[]> classes) {
        Set<String> own = new HashSet<>();
        for (String name : classes.keySet()) {
            own.add(name.replace('.', '/'));
        }
        Map<String, byte[]> out = new HashMap<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            ClassReader reader = new ClassReader(e.getValue());
            ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
            reader.accept(new Verifier(functionName, own, new Instrumenter(writer)), 0);
            out.put(e.getKey(), writer.toByteArray());
        }
        return out;
    }

    private final class Verifier extends ClassVisitor {
        private final String function;
        private final Set<String> own;
        private String where = "";

        Verifier(String function, Set<String> own, ClassVisitor next) {
            super(Opcodes.ASM9, next);
            this.function = function;
            this.own = own;
        }

        private HopFailure refuse(String rule, String what) {
            return new HopFailure(ErrorCode.SANDBOX_VIOLATION, "chaining function " + function + " uses " + what
                    + (where.isEmpty() ? "" : " in " + where) + ", which the sandbox does not allow (rule: " + rule + ")");
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
            if (own.contains(c) || userTypes.contains(c) || SandboxRules.CLASSES.contains(c)) {
                return;
            }
            for (String p : SandboxRules.PACKAGES) {
                if (c.startsWith(p) && c.indexOf('/', p.length()) < 0) {
                    return;
                }
            }
            throw refuse(SandboxRules.ruleFor(c), c.replace('/', '.'));
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

        void checkMember(String owner, String name) {
            if (owner.startsWith("[")) {
                checkClass(owner);
                return; // clone(), length
            }
            checkClass(owner);
            if (own.contains(owner) || userTypes.contains(owner)) {
                return;
            }
            Set<String> only = SandboxRules.ONLY_MEMBERS.get(owner);
            if ((only != null && !only.contains(name)) || SandboxRules.DENIED_MEMBERS.containsKey(owner + "." + name)) {
                throw refuse(SandboxRules.ruleForMember(owner, name), owner.replace('/', '.') + "." + name);
            }
            if (name.equals("wait") || name.equals("notify") || name.equals("notifyAll")) {
                throw refuse("threads", owner.replace('/', '.') + "." + name);
            }
        }

        void checkHandle(Handle h) {
            checkMember(h.getOwner(), h.getName());
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
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                         String[] exceptions) {
            if ((access & Opcodes.ACC_NATIVE) != 0) {
                throw refuse("native-code", "a native method " + name);
            }
            checkDescriptor(descriptor);
            String method = where + "." + name;
            MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
            return new MethodVisitor(Opcodes.ASM9, next) {
                private HopFailure at(HopFailure f) {
                    return f;
                }

                @Override
                public void visitMethodInsn(int opcode, String owner, String name, String desc, boolean itf) {
                    String saved = where;
                    where = method;
                    checkMember(owner, name);
                    where = saved;
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                }

                @Override
                public void visitFieldInsn(int opcode, String owner, String name, String desc) {
                    String saved = where;
                    where = method;
                    checkMember(owner, name);
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

    /** Adds the budget checks; runs after the verifier, so user code never sees {@link Budget}. */
    private static final class Instrumenter extends ClassVisitor {
        Instrumenter(ClassVisitor next) {
            super(Opcodes.ASM9, next);
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
                    Integer bytes = SandboxRules.SIZED_CALLS.get(owner + "." + name + desc);
                    if (bytes != null) {
                        checkSize(bytes);
                    }
                    super.visitMethodInsn(opcode, owner, name, desc, itf);
                }
            };
        }
    }
}
