package io.rpcc.maven;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Finds the source line and column of a sandbox violation, whose message names what the function
 * uses, where, and mostly the line ({@code chaining function com.acme.Checkout uses java.io.File in
 * com.acme.Checkout.apply (line 12), which the sandbox does not allow}). The line is the server's
 * where it gives one; else the first instruction of that method that uses that class or member, in
 * the class file the project's compiler wrote (its line table); else the method's first line; else
 * the line that declares the class. The column is that of the name in that line (else the line's
 * first non-blank character). {@code null} when there is no line to point at.
 */
final class SandboxLocator {
    /** What the function uses, and optionally where (class or class.method). */
    private static final Pattern MESSAGE = Pattern.compile(
            "uses (.+?)(?: in ([\\p{L}\\p{N}_$.<>]+))?(?: \\(line (\\d+)\\))?, which the sandbox does not allow");
    private static final Pattern QUALIFIED = Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$<][\\p{L}\\p{N}_$>]*)+");

    /** A place in the source: line and column, from 1. */
    record Position(int line, int column) {
    }

    private final Path classes;

    /** A locator that reads class files under {@code classes} ({@code target/classes}). */
    SandboxLocator(Path classes) {
        this.classes = classes;
    }

    /**
     * The position in {@code source} (the text of {@code function}'s file) of the violation that
     * {@code message} describes, or {@code null}.
     */
    Position locate(String function, String message, List<String> source) {
        Matcher m = MESSAGE.matcher(message);
        String what = null;
        String where = null;
        int line = 0;
        if (m.find()) {
            what = m.group(1);
            where = m.group(2);
            line = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
        }
        String className = function;
        String method = null;
        if (where != null) {
            if (classFile(where) != null) {
                className = where;
            } else {
                int dot = where.lastIndexOf('.');
                if (dot > 0 && classFile(where.substring(0, dot)) != null) {
                    className = where.substring(0, dot);
                    method = where.substring(dot + 1);
                }
            }
        }
        String owner = null;
        String member = null;
        if (what != null && QUALIFIED.matcher(what).matches()) {
            if (isClass(what)) {
                owner = what.replace('.', '/');
            } else {
                int dot = what.lastIndexOf('.');
                owner = what.substring(0, dot).replace('.', '/');
                member = what.substring(dot + 1);
            }
        }
        Path file = classFile(className);
        if ((line <= 0 || line > source.size()) && file != null && method != null) {
            line = lineIn(file, method, owner, member);
        }
        if (line <= 0 || line > source.size()) {
            line = declarationLine(className, source);
        }
        if (line <= 0) {
            return null;
        }
        String text = source.get(line - 1);
        int column = -1;
        if (owner != null) {
            String name = member != null && !member.startsWith("<") ? member : simpleName(owner);
            Matcher word = Pattern.compile("\\b" + Pattern.quote(name) + "\\b").matcher(text);
            if (word.find()) {
                column = word.start();
            }
        }
        if (column < 0) {
            column = 0;
            while (column < text.length() && Character.isWhitespace(text.charAt(column))) {
                column++;
            }
        }
        return new Position(line, column + 1);
    }

    private static String simpleName(String internalName) {
        String name = internalName.substring(internalName.lastIndexOf('/') + 1);
        return name.substring(name.lastIndexOf('$') + 1);
    }

    /** Whether {@code name} names a class (a JDK one, or any that loads here), not a member. */
    private boolean isClass(String name) {
        if (classFile(name) != null) {
            return true;
        }
        try {
            Class.forName(name, false, ClassLoader.getPlatformClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private Path classFile(String binaryName) {
        Path p = classes.resolve(binaryName.replace('.', '/') + ".class");
        return Files.isRegularFile(p) ? p : null;
    }

    /** The line of the class's declaration ({@code class Checkout}) in the source, or 0. */
    private static int declarationLine(String className, List<String> source) {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        simple = simple.substring(simple.lastIndexOf('$') + 1);
        Pattern declaration = Pattern.compile("\\b(class|record|enum|interface)\\s+" + Pattern.quote(simple) + "\\b");
        for (int i = 0; i < source.size(); i++) {
            if (declaration.matcher(source.get(i)).find()) {
                return i + 1;
            }
        }
        return 0;
    }

    /**
     * The line of the first instruction of {@code method} that uses {@code owner} (or its
     * {@code member}), else the method's first line, else 0.
     */
    private static int lineIn(Path classFile, String method, String owner, String member) {
        ClassReader reader;
        try {
            reader = new ClassReader(Files.readAllBytes(classFile));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        int[] found = {0, 0}; // the line of a use; the method's first line
        reader.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                                             String[] exceptions) {
                if (!name.equals(method) || found[0] > 0) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    private int line;

                    @Override
                    public void visitLineNumber(int l, Label start) {
                        line = l;
                        if (found[1] == 0) {
                            found[1] = l;
                        }
                    }

                    private void use(boolean matches) {
                        if (matches && found[0] == 0 && line > 0) {
                            found[0] = line;
                        }
                    }

                    private boolean names(String internalOrDescriptor) {
                        return owner != null && internalOrDescriptor != null
                                && (internalOrDescriptor.equals(owner) || internalOrDescriptor.contains("L" + owner + ";"));
                    }

                    @Override
                    public void visitTypeInsn(int opcode, String type) {
                        use(member == null && names(type));
                    }

                    @Override
                    public void visitMethodInsn(int opcode, String o, String name, String desc, boolean itf) {
                        use(owner != null && o.equals(owner) && (member == null || member.equals(name))
                                || member == null && names(desc));
                    }

                    @Override
                    public void visitFieldInsn(int opcode, String o, String name, String desc) {
                        use(owner != null && o.equals(owner) && (member == null || member.equals(name))
                                || member == null && names(desc));
                    }

                    @Override
                    public void visitLdcInsn(Object value) {
                        use(member == null && value instanceof Type t && names(t.getDescriptor()));
                    }

                    @Override
                    public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
                        boolean uses = member == null && names(desc);
                        for (Object a : args) {
                            if (a instanceof Handle h) {
                                uses |= owner != null && h.getOwner().equals(owner) && (member == null || member.equals(h.getName()));
                            } else if (a instanceof Type t) {
                                uses |= member == null && names(t.getDescriptor());
                            }
                        }
                        use(uses);
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
        return found[0] > 0 ? found[0] : found[1];
    }
}
