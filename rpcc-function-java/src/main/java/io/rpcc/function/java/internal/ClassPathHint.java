package io.rpcc.function.java.internal;

import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.spi.LoaderClassPath;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What to say when a chaining function does not compile because a type it names is not on the
 * node's class path, which javac reports as an unknown package, symbol or class file: the cause is
 * then where the node runs, not in the source.
 */
final class ClassPathHint {
    private static final Pattern MISSING_PACKAGE = Pattern.compile("package ([\\w.]+) does not exist");
    private static final Pattern MISSING_CLASS_FILE = Pattern.compile("class file for ([\\w.$]+) not found");
    private static final Pattern MISSING_CLASS = Pattern.compile("cannot find symbol\\s+symbol:\\s+class (\\w+)");

    private ClassPathHint() {
    }

    /** A sentence to append to the compile failure's message, or "" if no error is about a missing type. */
    static String forErrors(List<ChainingFunctionCompileException.Diagnostic> errors, LoaderClassPath classPath) {
        for (ChainingFunctionCompileException.Diagnostic d : errors) {
            String missing = missing(d.message());
            if (missing != null) {
                return ". " + missing + " is not on this node's class path: the node compiles chaining functions against "
                        + "the classes that its function class loader sees, " + classPath.describe() + ". If it is an "
                        + "application type, put the jar that holds it on this node (a service jar of a standalone "
                        + "node, a dependency of the application) or build the node with "
                        + "NodeBuilder.functionClassLoader(the loader that has it)";
            }
        }
        return "";
    }

    private static String missing(String message) {
        for (Pattern p : List.of(MISSING_PACKAGE, MISSING_CLASS_FILE)) {
            Matcher m = p.matcher(message);
            if (m.find()) {
                return (p == MISSING_PACKAGE ? "package " : "class ") + m.group(1);
            }
        }
        Matcher m = MISSING_CLASS.matcher(message);
        return m.find() ? "class " + m.group(1) : null;
    }
}
