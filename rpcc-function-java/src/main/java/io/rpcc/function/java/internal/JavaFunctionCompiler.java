package io.rpcc.function.java.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.NextHop;
import io.rpcc.core.SequentialChain;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.CompiledFunction;
import io.rpcc.core.spi.FunctionCompiler;
import io.rpcc.core.spi.FunctionFailure;
import io.rpcc.core.spi.FunctionText;
import io.rpcc.core.spi.LoaderClassPath;
import io.rpcc.core.spi.SequentialReplay;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Compiles Java chaining functions in memory with {@code javax.tools}: no files are written. Each
 * function gets its own class loader, so it can be unloaded once evicted from the cache.
 *
 * <p>The source must hold one public top-level class that implements {@link ChainingFunction} (or
 * {@link SequentialChain}: it then runs by replay, {@link SequentialReplay}) and has a public
 * no-argument constructor. It is compiled against the JDK (release 21) and the classes
 * the node's function class loader sees, read through that loader ({@link LoaderClassPath}): the
 * rpcc API, the application's classes and jars, a standalone node's service jars, the classes and
 * libraries inside a Spring Boot jar.
 */
public final class JavaFunctionCompiler implements FunctionCompiler {

    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();
    /** The packages whose classes a function's own would shadow: rpcc-core's and this module's (the sandbox's). */
    private static final List<String> RPCC_OWN = List.of(ChainingFunction.class.getPackageName() + ".",
            JavaFunctionCompiler.class.getPackageName().substring(0,
                    JavaFunctionCompiler.class.getPackageName().lastIndexOf('.') + 1));

    private final ClassLoader parent;
    private final LoaderClassPath classPath;
    /** The class path's files, listed and read once for all of this compiler's compilations. */
    private final ClassPathFiles classPathFiles;
    private final BytecodeSandbox sandbox;
    private final Sandbox runner;

    /**
     * A compiler whose functions compile against and load classes through {@code parent}
     * ({@code known} classes, the registered types, show which module layers its modules are in); if
     * {@code sandbox} is not null, compiled classes are verified and instrumented before they load,
     * and run by {@code runner}.
     */
    JavaFunctionCompiler(ClassLoader parent, Iterable<Class<?>> known, BytecodeSandbox sandbox, Sandbox runner) {
        this.parent = parent;
        this.classPath = new LoaderClassPath(parent, known);
        this.classPathFiles = new ClassPathFiles(classPath);
        this.sandbox = sandbox;
        this.runner = runner;
    }

    @Override
    public boolean prefersPlatformThread() {
        return runner != null;
    }

    /** Holds the watchdog and javac's file managers ({@link JavaResources}) while the node is open. */
    @Override
    public void open() {
        JavaResources.acquire();
    }

    @Override
    public void close() {
        JavaResources.release();
    }

    @Override
    public int abandonedThreads() {
        return runner == null ? 0 : runner.abandonedRunning();
    }

    @Override
    public FunctionLanguage language() {
        return FunctionLanguage.JAVA;
    }

    @Override
    public CompiledFunction compile(ChainingFunctionSource source) {
        if (JAVAC == null) {
            throw FunctionFailure.compile("this node runs on a Java runtime without a "
                    + "compiler (javax.tools); run it on a JDK to use Java chaining functions");
        }
        String className = className(source.source());
        JavaFileObject unit = new SourceObject(className, source.source());
        Javac run = Javac.run(classPathFiles, unit);
        if (run.brokenPlatform()) {
            run = Javac.run(classPathFiles, unit); // on the platform classes opened afresh
        }
        Map<String, byte[]> classes = run.classes();
        if (!run.ok()) {
            List<ChainingFunctionCompileException.Diagnostic> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : run.diagnostics().getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(new ChainingFunctionCompileException.Diagnostic(Math.max(0, d.getLineNumber()),
                            Math.max(0, d.getColumnNumber()), d.getMessage(Locale.ROOT)));
                }
            }
            String first = errors.isEmpty() ? "" : "; first: " + errors.get(0).toString().lines().findFirst().orElse("");
            throw FunctionFailure.compileErrors("chaining function " + className + " (" + FunctionText.shortId(source)
                    + ") does not compile: " + errors.size() + (errors.size() == 1 ? " error" : " errors") + first
                    + ClassPathHint.forErrors(errors, classPath), errors);
        }
        refuseShadowsOfRpcc(source, classes.keySet());
        return load(source, className, sandbox == null ? classes : sandbox.transform(className, classes, source.source()));
    }

    /**
     * A function's own classes load before the application's (see {@link FunctionClassLoader}), so
     * one in rpcc-core's packages or in this module's would replace, for the function, the API and
     * runtime classes its code resolves from there, the sandbox's own {@code Budget} included:
     * refused. (Other packages are the application's to use: a function shadowing a class of
     * rpcc-server, say, changes nothing for rpcc, which never loads classes through the function's
     * loader.)
     */
    private void refuseShadowsOfRpcc(ChainingFunctionSource source, Set<String> names) {
        for (String name : names) {
            if (RPCC_OWN.stream().anyMatch(name::startsWith)) {
                throw failure(source, "declares the class " + name + " in rpcc's own package "
                        + name.substring(0, name.lastIndexOf('.')) + "; put the function in a package of your own");
            }
        }
    }

    private CompiledFunction load(ChainingFunctionSource source, String className, Map<String, byte[]> classes) {
        ClassLoader loader = new FunctionClassLoader(parent, classes);
        try {
            Class<?> type = Class.forName(className, false, loader);
            boolean sequential = !ChainingFunction.class.isAssignableFrom(type)
                    && SequentialChain.class.isAssignableFrom(type);
            if (!ChainingFunction.class.isAssignableFrom(type) && !sequential) {
                throw failure(source, className + " does not implement " + ChainingFunction.class.getName() + " (nor "
                        + SequentialChain.class.getName() + ")");
            }
            if (Modifier.isAbstract(type.getModifiers())) {
                throw failure(source, className + " is abstract");
            }
            Constructor<?> ctor = type.getConstructor();
            initialize(classes.keySet(), loader);
            return new CompiledFunction() {
                @Override
                public ChainingFunctionSource source() {
                    return source;
                }

                @Override
                public NextHop invoke(ChainState state, Object result) throws Exception {
                    return runner == null ? apply(state, result)
                            : runner.run(() -> OutputCheck.check(apply(state, result), loader));
                }

                /** A fresh instance's next hop: a sequential chain's by replay (inside the sandbox, if any). */
                private NextHop apply(ChainState state, Object result) throws Exception {
                    Object function = newInstance();
                    return sequential ? SequentialReplay.step((SequentialChain<?, ?>) function, state, result)
                            : ((ChainingFunction) function).apply(state, result);
                }

                @Override
                public NextHop invoke(ChainState state, Object result, Consumer<FunctionFailure> onAbandon)
                        throws Exception {
                    return Sandbox.whenAbandoned(onAbandon, () -> invoke(state, result));
                }

                private Object newInstance() throws Exception {
                    try {
                        return ctor.newInstance();
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        if (e.getCause() instanceof Error err) {
                            throw err; // e.g. a sandbox violation in a constructor
                        }
                        throw (Exception) e.getCause();
                    }
                }
            };
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            throw failure(source, e instanceof NoSuchMethodException
                    ? className + " has no public no-argument constructor"
                    : "compiled, but found no class " + className);
        } catch (LinkageError e) {
            throw failure(source, "cannot load " + className + ": " + e);
        }
    }

    /**
     * Initializes all of the function's classes now, once, on the compiling thread (under the
     * sandbox's budget if it has one): static initializers run by two concurrent invocations could
     * otherwise wait for each other for ever (two classes whose initializers use each other). A
     * sandbox limit hit here may not be hit on a less busy node, so the failure is not cached.
     */
    private void initialize(Set<String> names, ClassLoader loader) {
        Callable<Void> init = () -> {
            for (String name : names) {
                Class.forName(name, true, loader);
            }
            return null;
        };
        try {
            if (runner == null) {
                init.call();
            } else {
                runner.run(init);
            }
        } catch (FunctionFailure f) {
            // a limit hit here may not be hit on a less busy node: a failure of the moment
            throw f.code() == ChainErrorCode.SANDBOX_VIOLATION ? f.asTransient() : f;
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw FunctionFailure.failed(cause.getClass().getName(), FunctionText.bounded(cause.getMessage()),
                    FunctionText.stackTrace(cause), null);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw FunctionFailure.compile("cannot initialize the chaining function's classes: " + e, e);
        }
    }

    private static FunctionFailure failure(ChainingFunctionSource source, String message) {
        return FunctionFailure.compile("chaining function (" + FunctionText.shortId(source) + "): " + message);
    }

    /**
     * The fully qualified name of the source's public top-level class, or {@code ChainingFunctionImpl}:
     * one pass over the source (linear time whatever it holds), skipping comments, string, text-block
     * and character literals, and everything nested in braces.
     */
    static String className(String source) {
        String pkg = null;
        String simple = null;
        boolean expectPackage = false;
        boolean sawPublic = false;
        boolean expectName = false;
        int depth = 0;
        int n = source.length();
        int i = 0;
        while (i < n && simple == null) {
            char c = source.charAt(i);
            char next = i + 1 < n ? source.charAt(i + 1) : 0;
            if (c == '/' && next == '/') {
                int end = source.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && next == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '"' || c == '\'') {
                i = skipLiteral(source, i);
            } else if (c == '{' || c == '}') {
                depth += c == '{' ? 1 : -1;
                sawPublic = false;
                expectName = false;
                i++;
            } else if (Character.isJavaIdentifierStart(c)) {
                int start = i;
                while (i < n && (Character.isJavaIdentifierPart(source.charAt(i)) || (expectPackage && source.charAt(i) == '.'))) {
                    i++;
                }
                String word = source.substring(start, i);
                if (depth != 0) {
                    continue;
                }
                if (expectPackage) {
                    pkg = word;
                    expectPackage = false;
                } else if (expectName) {
                    simple = word;
                } else if (word.equals("package") && pkg == null) {
                    expectPackage = true;
                } else if (word.equals("public")) {
                    sawPublic = true;
                } else if (sawPublic && (word.equals("class") || word.equals("record"))) {
                    expectName = true;
                } else if (!MODIFIERS.contains(word)) {
                    sawPublic = false;
                }
            } else {
                if (c == ';' || c == '(' || c == '=') {
                    sawPublic = false;
                    expectName = false;
                }
                i++;
            }
        }
        String name = simple == null ? "ChainingFunctionImpl" : simple;
        return pkg == null ? name : pkg + "." + name;
    }

    private static final Set<String> MODIFIERS = Set.of("final", "abstract", "sealed", "non", "strictfp", "static");

    /** The index just after the string, text block or character literal starting at {@code i}. */
    private static int skipLiteral(String source, int i) {
        int n = source.length();
        char quote = source.charAt(i);
        boolean textBlock = quote == '"' && source.startsWith("\"\"\"", i);
        int j = i + (textBlock ? 3 : 1);
        while (j < n) {
            char c = source.charAt(j);
            if (c == '\\') {
                j += 2;
            } else if (textBlock ? source.startsWith("\"\"\"", j) : c == quote) {
                return j + (textBlock ? 3 : 1);
            } else if (!textBlock && c == '\n') {
                return j + 1;
            } else {
                j++;
            }
        }
        return n;
    }

    private static final class SourceObject extends SimpleJavaFileObject {
        private final String code;

        SourceObject(String className, String code) {
            super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /**
     * Defines one function's classes; dropped (and its classes unloaded) when the function is
     * evicted. It keeps a class file only until it has defined the class (the compiler initializes
     * them all at once), not for as long as the function stays cached.
     */
    private static final class FunctionClassLoader extends ClassLoader {
        private static final String BUDGET = Budget.class.getName();
        private final Set<String> names;
        private final Map<String, byte[]> undefined;

        FunctionClassLoader(ClassLoader parent, Map<String, byte[]> classes) {
            super("rpcc-chaining-function", parent);
            this.names = Set.copyOf(classes.keySet());
            this.undefined = new ConcurrentHashMap<>(classes);
        }

        /**
         * The function's own classes first: the application may hold a class of the same name (the
         * function's source is an ordinary class of the application, shipped with
         * {@code ChainingFunctionSource.of(Class)}), and the compiled, sandboxed copy must be the one
         * that runs.
         */
        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(BUDGET)) {
                // the instrumented code's checks go to this sandbox's Budget, whichever copy (or none) the
                // node's function class loader would find: it must see rpcc-core, not this module
                return Budget.class;
            }
            if (!names.contains(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = undefined.get(name);
            if (bytes == null) {
                throw new ClassNotFoundException(name);
            }
            Class<?> c = defineClass(name, bytes, 0, bytes.length); // may fail: then the bytes stay, to fail alike again
            undefined.remove(name);
            return c;
        }
    }

    /**
     * One javac run: whether it compiled, its diagnostics and classes, and whether it failed because
     * the platform classes it read broke under it ({@link PlatformClasses#readable()}: some thread was
     * interrupted while reading {@code ct.sym}); then {@link JavaResources} has dropped them and a
     * second run opens them afresh.
     */
    private record Javac(boolean ok, DiagnosticCollector<JavaFileObject> diagnostics, Map<String, byte[]> classes,
                         boolean brokenPlatform) {
        static Javac run(ClassPathFiles classPath, JavaFileObject unit) {
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            Map<String, byte[]> classes = new ConcurrentHashMap<>();
            // one file manager per compilation; idle ones (warm, serving the platform classes from the
            // ct.sym JavaResources holds open) are kept by JavaResources
            ReleaseFileManager fileManager = JavaResources.fileManager(JAVAC);
            PlatformClasses platform = fileManager.platform();
            boolean ok;
            boolean broken;
            try {
                JavaFileManager memory = new LoaderFileManager(fileManager, classPath, classes);
                ok = JAVAC.getTask(null, memory, diagnostics, fileManager.options(), null, List.of(unit)).call();
                broken = !ok && platform != null && !platform.readable(); // checked while the file manager holds it
            } finally {
                JavaResources.release(fileManager);
            }
            if (broken) {
                JavaResources.discard(platform);
            }
            return new Javac(ok, diagnostics, classes, broken);
        }
    }
}
