package io.rpcc.function.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.source.util.JavacTask;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NextHop;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.function.FunctionRuntime;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.spi.CompiledFunction;
import java.net.URI;
import java.util.ArrayList;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Functions compile against Java 21's platform API and no other, whether javac's {@code --release 21}
 * serves it or {@link PlatformClasses} (the JDK's {@code ct.sym} opened once per JVM, the usual
 * case); the shared file managers serve concurrent compilations; errors still name their line.
 */
class ReleaseApiTest {
    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();
    /** Packages whose every public type and member are compared. */
    private static final List<String> COMPARED = List.of("java.lang", "java.util", "java.util.stream",
            "java.util.concurrent", "java.util.function", "java.io", "java.time", "java.nio.file", "java.lang.reflect");

    /** Holds the threads and file managers a started node would hold for its runtime. */
    private static FunctionRuntime held;

    @BeforeAll
    static void holdFunctionResources() {
        held = runtime().open();
    }

    @AfterAll
    static void releaseFunctionResources() {
        held.close();
    }

    private static FunctionRuntime runtime() {
        return FunctionRuntime.forNode(TypeRegistry.empty(), SandboxLimits.DEFAULT, 64);
    }

    @Test
    void thePlatformClassesAreExactlyWhatReleaseTwentyOneGives() throws Exception {
        PlatformClasses platform = PlatformClasses.open(ReleaseFileManager.RELEASE);
        assumeTrue(platform != null || Runtime.version().feature() == ReleaseFileManager.RELEASE,
                "this JDK has no ct.sym for release 21: javac's --release serves it");
        if (platform == null) {
            return;
        }
        List<String> ours;
        List<String> javacs;
        try (ReleaseFileManager served = ReleaseFileManager.create(JAVAC, platform);
             ReleaseFileManager release = ReleaseFileManager.create(JAVAC, null)) {
            assertTrue(served.options().containsAll(List.of("-source", "21", "-target", "21")), served.options().toString());
            assertFalse(served.options().contains("--release"));
            assertTrue(release.options().containsAll(List.of("--release", "21")), release.options().toString());
            ours = api(served);
            javacs = api(release);
        }
        assertEquals(javacs.size(), ours.size());
        assertEquals(javacs, ours);
        assertTrue(javacs.size() > 5_000, "compared " + javacs.size() + " declarations");
        assertTrue(ours.contains("module java.base exports java.util.stream"));
        assertTrue(ours.stream().anyMatch(s -> s.startsWith("type java.util.SequencedCollection ")), "added in 21");
        assertFalse(ours.stream().anyMatch(s -> s.startsWith("type java.util.stream.Gatherers ")), "added in 24");
        assertFalse(ours.stream().anyMatch(s -> s.startsWith("type java.lang.IO ")), "added in 25");
    }

    /**
     * The platform API {@code fileManager} serves: every module with the packages it exports to all,
     * and every public or protected type and member of {@link #COMPARED}, one line each, sorted.
     */
    private static List<String> api(ReleaseFileManager fileManager) throws Exception {
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavacTask task = (JavacTask) JAVAC.getTask(null, fileManager, diagnostics, fileManager.options(), null,
                List.of(source("Probe", "class Probe { }")));
        task.analyze();
        assertTrue(diagnostics.getDiagnostics().stream().noneMatch(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR),
                diagnostics.getDiagnostics().toString());
        Elements elements = task.getElements();
        TreeSet<String> out = new TreeSet<>();
        for (ModuleElement module : elements.getAllModuleElements()) {
            if (module.isUnnamed()) {
                continue;
            }
            out.add("module " + module.getQualifiedName());
            for (ModuleElement.Directive d : module.getDirectives()) {
                if (d instanceof ModuleElement.ExportsDirective e && e.getTargetModules() == null) {
                    out.add("module " + module.getQualifiedName() + " exports " + e.getPackage().getQualifiedName());
                }
            }
        }
        ModuleElement base = elements.getModuleElement("java.base");
        assertNotNull(base);
        for (String name : COMPARED) {
            PackageElement pkg = elements.getPackageElement(base, name);
            assertNotNull(pkg, name);
            for (Element type : pkg.getEnclosedElements()) {
                describe((TypeElement) type, out);
            }
        }
        return List.copyOf(out);
    }

    private static void describe(TypeElement type, Set<String> out) {
        if (!isApi(type)) {
            return;
        }
        out.add("type " + type.getQualifiedName() + " " + type.getKind() + " " + type.getModifiers() + " extends "
                + type.getSuperclass() + " implements " + type.getInterfaces() + " " + type.getTypeParameters());
        for (Element member : type.getEnclosedElements()) {
            if (member instanceof TypeElement nested) {
                describe(nested, out);
            } else if (isApi(member)) {
                String signature = member instanceof ExecutableElement m
                        ? m.getReturnType() + " " + m + " throws " + m.getThrownTypes() : member.asType() + " " + member;
                out.add("member " + type.getQualifiedName() + " " + member.getKind() + " " + member.getModifiers()
                        + " " + signature);
            }
        }
    }

    private static boolean isApi(Element e) {
        return e.getModifiers().contains(Modifier.PUBLIC) || e.getModifiers().contains(Modifier.PROTECTED);
    }

    private static JavaFileObject source(String className, String code) {
        return new SimpleJavaFileObject(URI.create("string:///" + className + ".java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return code;
            }
        };
    }

    @Test
    void aFunctionUsingAnApiAddedAfterJavaTwentyOneDoesNotCompile() {
        FunctionRuntime rt = runtime();
        assertRefused(rt, "java.util.stream.Gatherers.windowFixed(2)", "class Gatherers"); // JDK 24
        assertRefused(rt, "java.io.Reader.of(\"text\")", "method of("); // JDK 24
        assertRefused(rt, "IO.readln()", "IO"); // java.lang.IO, JDK 25
        // Java 21's own API does compile: SequencedCollection.reversed(), Math.clamp
        CompiledFunction ok = rt.load(ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class UsesTwentyOne implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(java.util.List.of(1, 2, 3).reversed().get(0) + Math.clamp(9L, 0, 5));
                    }
                }
                """)).function();
        assertEquals(NextHop.end(8), rt.invoke(ok, ChainState.empty(), null));
    }

    private static void assertRefused(FunctionRuntime rt, String expression, String symbol) {
        ChainingFunctionSource source = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class TooNew implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        Object o = %s;
                        return NextHop.end(String.valueOf(o));
                    }
                }
                """.formatted(expression));
        HopFailure e = assertThrows(HopFailure.class, () -> rt.load(source), expression);
        assertEquals(ChainErrorCode.CHAINING_FUNCTION_COMPILE, e.code(), e.getMessage());
        List<ChainingFunctionCompileException.Diagnostic> diagnostics = e.fields().diagnostics();
        assertFalse(diagnostics.isEmpty(), e.getMessage());
        ChainingFunctionCompileException.Diagnostic d = diagnostics.get(0);
        assertEquals(4, d.line(), d.toString());
        assertTrue(d.message().startsWith("cannot find symbol") && d.message().contains(symbol), d.toString());
    }

    @Test
    void aCompileErrorNamesItsLine() {
        FunctionRuntime rt = runtime();
        ChainingFunctionSource broken = ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                import java.util.*;
                public class Deep implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        List<Integer> values = new ArrayList<>();
                        for (int i = 0; i < 3; i++) {
                            values.add(i);
                        }
                        values.add(undefinedHere);
                        return NextHop.end(values);
                    }
                }
                """);
        HopFailure e = assertThrows(HopFailure.class, () -> rt.load(broken));
        ChainingFunctionCompileException.Diagnostic d = e.fields().diagnostics().get(0);
        assertEquals(9, d.line(), d.toString());
        assertEquals(20, d.column(), d.toString());
        assertTrue(d.message().contains("undefinedHere"), d.toString());
        assertTrue(e.getMessage().contains("9:20: cannot find symbol"), e.getMessage());
    }

    @Test
    void aThreadInterruptedWhileReadingTheClassesBreaksNoLaterCompilation() throws Exception {
        JavaFunctionCompiler compiler = new JavaFunctionCompiler(getClass().getClassLoader(), List.of(), null, null);
        compiler.open();
        try {
            assertEquals(1, run(compiler, 1), "compiles before");
            ReleaseFileManager idle = JavaResources.fileManager(JAVAC);
            PlatformClasses platform = idle.platform();
            JavaResources.release(idle);
            assumeTrue(platform != null, "this JDK has no ct.sym for release 21: javac's --release serves it");
            assertTrue(platform.readable());
            // what a node's close did to its warm-up thread: an interrupt during a read of ct.sym closes
            // the zip's channel for every reader (an interruptible FileChannel)
            Thread reader = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    for (List<Path> dirs : platform.modules().values()) {
                        for (Path dir : dirs) {
                            try (var files = java.nio.file.Files.list(dir)) {
                                for (Path file : (Iterable<Path>) files::iterator) {
                                    if (java.nio.file.Files.isRegularFile(file)) {
                                        java.nio.file.Files.readAllBytes(file);
                                    }
                                }
                            }
                        }
                    }
                } catch (java.io.IOException expected) {
                    // java.nio.channels.ClosedByInterruptException
                }
            });
            reader.start();
            reader.join();
            assertFalse(platform.readable(), "the interrupt closed ct.sym's channel");
            // the next compilations compile: from the signature files read before (kept in memory)
            assertEquals(2, run(compiler, 2));
            assertEquals(3, run(compiler, 3));
            // one that needs a file not read before notices, opens ct.sym afresh and compiles
            assertEquals(0, run(compiler, 4, "new java.util.concurrent.Phaser(0).getRegisteredParties()"));
            ReleaseFileManager fresh = JavaResources.fileManager(JAVAC);
            try {
                assertTrue(fresh.platform() != platform && fresh.platform() != null && fresh.platform().readable());
            } finally {
                JavaResources.release(fresh);
            }
        } finally {
            compiler.close();
        }
    }

    private static Object run(JavaFunctionCompiler compiler, int n) throws Exception {
        return run(compiler, n, "java.util.List.of(" + n + ").get(0)");
    }

    private static Object run(JavaFunctionCompiler compiler, int n, String result) throws Exception {
        CompiledFunction f = compiler.compile(ChainingFunctionSource.java("""
                import io.rpcc.core.*;
                public class Plain%d implements ChainingFunction {
                    public NextHop apply(ChainState state, Object result) {
                        return NextHop.end(%s);
                    }
                }
                """.formatted(n, result)));
        return ((NextHop.End) f.invoke(ChainState.empty(), null)).result();
    }

    @Test
    void manyFunctionsCompileAtOnceFromSeveralThreads() throws Exception {
        // more threads than idle file managers are kept: some compile on new ones, made concurrently
        int threads = 8;
        int each = 3;
        JavaFunctionCompiler compiler = new JavaFunctionCompiler(getClass().getClassLoader(), List.of(), null, null);
        compiler.open();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Object>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    go.await();
                    List<Object> out = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        int id = thread * 100 + i;
                        CompiledFunction f = compiler.compile(ChainingFunctionSource.java("""
                                package demo.concurrent;
                                import io.rpcc.core.*;
                                import java.util.stream.*;
                                public class F%d implements ChainingFunction {
                                    public NextHop apply(ChainState state, Object result) {
                                        return NextHop.end(IntStream.rangeClosed(1, 3).map(x -> x * %d).sum());
                                    }
                                }
                                """.formatted(id, id)));
                        out.add(((NextHop.End) f.invoke(ChainState.empty(), null)).result());
                    }
                    return out;
                }));
            }
            go.countDown();
            for (int t = 0; t < threads; t++) {
                List<Object> expected = new ArrayList<>();
                for (int i = 0; i < each; i++) {
                    expected.add(6 * (t * 100 + i));
                }
                assertEquals(expected, results.get(t).get(), "thread " + t);
            }
        } finally {
            pool.shutdownNow();
            compiler.close();
        }
    }
}
