package io.rpcc.maven;

import io.rpcc.core.ChainException;
import io.rpcc.core.ChainingFunction;
import io.rpcc.core.ChainingFunctionCompileException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.SequentialChain;
import io.rpcc.core.runtime.FunctionCheck;
import io.rpcc.core.RpccType;
import io.rpcc.core.SandboxLimits;
import io.rpcc.core.SandboxViolationException;
import io.rpcc.core.TypeRegistry;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Checks every chaining function of the project as an rpcc server would, and packages their
 * sources for {@code ChainingFunctionSource.of(Class)}.
 *
 * <p>A chaining function is a top-level, non-abstract class in {@code target/classes} that
 * implements {@code io.rpcc.core.ChainingFunction} (or {@code io.rpcc.core.SequentialChain}). For each one the goal
 * <ol>
 *   <li>finds its source file in the project's compile source roots ({@code com/acme/Checkout.java}
 *       for {@code com.acme.Checkout}); a function without one is an error, since a server
 *       receives the source, not the class;</li>
 *   <li>runs the server's own compile and sandbox check ({@code io.rpcc.core.runtime.FunctionCheck}) on
 *       that source, against the project's classes and dependencies, with the types a node of
 *       this application registers: every class annotated {@code @io.rpcc.core.RpccType} in
 *       {@code target/classes}, plus those listed in {@code <types>};</li>
 *   <li>copies the source, UTF-8, to
 *       {@code target/classes/META-INF/rpcc/functions/com/acme/Checkout.java}, where
 *       {@code ChainingFunctionSource.of(Checkout.class)} finds it at run time (so it is in the jar,
 *       and in a Spring Boot jar).</li>
 * </ol>
 * A function the server would refuse fails the build with the server's message, one line per
 * problem in the form {@code /abs/path/Checkout.java:12:17: message} that IDEs and consoles link:
 * each compile error with its line and column; a sandbox violation with the line and column of the
 * first use of what it names in the method it names (found in the class file's line table), with
 * the sandbox rule.
 *
 * <pre>{@code
 * <plugin>
 *   <groupId>io.rpcc</groupId>
 *   <artifactId>rpcc-maven-plugin</artifactId>
 *   <version>0.1.0-SNAPSHOT</version>
 *   <executions>
 *     <execution>
 *       <goals><goal>check-functions</goal></goals>
 *     </execution>
 *   </executions>
 * </plugin>
 * }</pre>
 *
 * <p>It runs in {@code process-classes}, after {@code compile}, so {@code mvn package},
 * {@code mvn test} and {@code mvn spring-boot:run} all check and package the functions.
 */
@Mojo(name = "check-functions", defaultPhase = LifecyclePhase.PROCESS_CLASSES,
        requiresDependencyResolution = ResolutionScope.COMPILE_PLUS_RUNTIME, threadSafe = true)
public class CheckFunctionsMojo extends AbstractMojo {

    /** Where, under the output directory, the sources of the checked functions go (where {@code ChainingFunctionSource.of} reads them). */
    static final String FUNCTIONS_DIRECTORY = ChainingFunctionSource.PACKAGED_SOURCES;

    /** The project being built. */
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /** The directory of the project's compiled classes, searched for chaining functions and {@code @RpccType} classes. */
    @Parameter(defaultValue = "${project.build.outputDirectory}", required = true)
    private File outputDirectory;

    /**
     * Further application types the node registers, by class name (for types registered by list,
     * as the Spring property {@code rpcc.types} does, rather than annotated with {@code @RpccType}).
     * A type annotated with {@code @RpccType} is registered with its annotation's id.
     *
     * <pre>{@code
     * <types>
     *   <type>com.acme.Quote</type>
     * </types>
     * }</pre>
     */
    @Parameter
    private List<String> types = new ArrayList<>();

    /**
     * Packages whose {@code @RpccType} classes the node registers as well, with their
     * sub-packages, found on the whole project class path (for annotated types in a dependency,
     * such as a shared model module, as the Spring property {@code rpcc.types-packages} does).
     *
     * <pre>{@code
     * <typePackages>
     *   <typePackage>com.acme.model</typePackage>
     * </typePackages>
     * }</pre>
     */
    @Parameter
    private List<String> typePackages = new ArrayList<>();

    /**
     * {@code false} for nodes built {@code withoutSandbox()}: the functions are compiled only, not
     * checked against the sandbox's rules.
     */
    @Parameter(property = "rpcc.sandbox", defaultValue = "true")
    private boolean sandbox;

    /**
     * Skips the check. The sources are still packaged, so {@code ChainingFunctionSource.of(Class)}
     * works at run time; a function that breaks a rule then fails at the server instead.
     */
    @Parameter(property = "rpcc.check.skip", defaultValue = "false")
    private boolean skip;

    /** The encoding of the source files (the packaged copies are always UTF-8). */
    @Parameter(defaultValue = "${project.build.sourceEncoding}")
    private String encoding;

    /** Made by Maven, which then sets the parameters. */
    public CheckFunctionsMojo() {
    }

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        Path classes = outputDirectory.toPath().toAbsolutePath();
        if (!Files.isDirectory(classes)) {
            getLog().debug("rpcc: no " + classes + ", no chaining functions to check");
            return;
        }
        List<String> names = classNames(classes);
        List<Path> roots = new ArrayList<>();
        for (String root : project.getCompileSourceRoots()) {
            roots.add(Path.of(root).toAbsolutePath());
        }
        Charset charset = encoding == null || encoding.isBlank() ? StandardCharsets.UTF_8 : Charset.forName(encoding);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (ProjectClassLoader loader = new ProjectClassLoader(classPath(classes), CheckFunctionsMojo.class.getClassLoader())) {
            List<Class<?>> functions = new ArrayList<>();
            TypeRegistry.Builder registry = TypeRegistry.builder();
            List<String> problems = new ArrayList<>();
            Set<String> registered = new TreeSet<>();
            for (String name : names) {
                Class<?> type;
                try {
                    type = Class.forName(name, false, loader);
                } catch (ClassNotFoundException | LinkageError e) {
                    getLog().debug("rpcc: cannot load " + name + " (" + e + "), not checked");
                    continue;
                }
                if (type.isAnnotationPresent(RpccType.class)) {
                    register(registry, type, problems);
                    registered.add(name);
                }
                if (name.indexOf('$') < 0 && !type.isInterface() && !Modifier.isAbstract(type.getModifiers())
                        && (ChainingFunction.class.isAssignableFrom(type) || SequentialChain.class.isAssignableFrom(type))) { // rpcc's classes are the plugin's (ProjectClassLoader)
                    functions.add(type);
                }
            }
            for (String name : types) {
                try {
                    Class<?> type = Class.forName(name.trim(), false, loader);
                    if (registered.add(type.getName())) {
                        register(registry, type, problems);
                    }
                } catch (ClassNotFoundException | LinkageError e) {
                    problems.add("<types> names " + name.trim() + ", which is not on the project's class path (" + e + ")");
                }
            }
            for (String pkg : typePackages) {
                try {
                    registry.scan(pkg.trim(), loader);
                } catch (RuntimeException | LinkageError e) {
                    problems.add("cannot register the @RpccType classes of package " + pkg.trim() + " (<typePackages>) as a "
                            + "node would: " + e);
                }
            }
            if (skip) {
                problems.clear(); // type registration is part of the check
            }
            if (functions.isEmpty()) {
                getLog().debug("rpcc: no chaining functions in " + classes);
                fail(problems, 0);
                return;
            }
            fail(problems, functions.size());
            Thread.currentThread().setContextClassLoader(loader);
            TypeRegistry typeRegistry = registry.build();
            FunctionCheck.Builder builder = FunctionCheck.builder().classLoader(loader).types(typeRegistry);
            FunctionCheck check = (sandbox ? builder.sandbox(SandboxLimits.DEFAULT) : builder.withoutSandbox()).build();
            SandboxLocator locator = new SandboxLocator(classes);
            List<String> checked = new ArrayList<>();
            for (Class<?> function : functions) {
                String relative = function.getName().replace('.', '/') + ".java";
                Path file = find(roots, relative);
                if (file == null) {
                    problems.add(classes.resolve(function.getName().replace('.', '/') + ".class") + ": chaining function "
                            + function.getName() + " has no source file " + relative + " in the compile source roots "
                            + roots + "; a server receives and compiles the source, so a chaining function is a public class in a .java file of its own");
                    continue;
                }
                String source;
                try {
                    source = Files.readString(file, charset);
                } catch (IOException e) {
                    throw new MojoExecutionException("cannot read " + file + ": " + e.getMessage(), e);
                }
                if (!skip) {
                    int before = problems.size();
                    check(check, function.getName(), file, source, locator, problems);
                    if (problems.size() > before) {
                        continue;
                    }
                }
                Path copy = classes.resolve(FUNCTIONS_DIRECTORY).resolve(relative);
                try {
                    Files.createDirectories(copy.getParent());
                    Files.writeString(copy, source, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new MojoExecutionException("cannot write " + copy + ": " + e.getMessage(), e);
                }
                checked.add(function.getName());
            }
            fail(problems, functions.size());
            getLog().info("rpcc: " + (skip ? "packaged (check skipped) " : sandbox ? "checked (compile and sandbox) "
                    : "checked (compile only, no sandbox) ") + checked.size() + " chaining function"
                    + (checked.size() == 1 ? "" : "s") + " " + checked + " with " + typeRegistry.registrations().size()
                    + " registered type" + (typeRegistry.registrations().size() == 1 ? "" : "s") + "; sources in "
                    + classes.resolve(FUNCTIONS_DIRECTORY));
        } catch (IOException e) {
            throw new MojoExecutionException("rpcc: " + e.getMessage(), e);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static void register(TypeRegistry.Builder registry, Class<?> type, List<String> problems) {
        try {
            if (type.isAnnotationPresent(RpccType.class)) {
                registry.registerAnnotated(type);
            } else {
                registry.register(type);
            }
        } catch (IllegalArgumentException e) {
            problems.add("cannot register " + type.getName() + " as a node would: " + e.getMessage());
        }
    }

    /** Runs the server's check on one function's source; adds what it refuses to {@code problems}. */
    private void check(FunctionCheck check, String function, Path file, String source, SandboxLocator locator,
                       List<String> problems) {
        try {
            check.check(ChainingFunctionSource.java(source));
            getLog().debug("rpcc: " + function + " passes");
        } catch (ChainingFunctionCompileException e) {
            if (e.diagnostics().isEmpty()) {
                problems.add(file + ": " + message(e));
            }
            for (ChainingFunctionCompileException.Diagnostic d : e.diagnostics()) {
                problems.add(file + (d.line() > 0 ? ":" + d.line() + (d.column() > 0 ? ":" + d.column() : "") : "")
                        + ": " + indent(d.message()));
            }
        } catch (SandboxViolationException e) {
            String message = message(e);
            if (!message.contains("(rule: " + e.rule() + ")")) {
                message += " (rule: " + e.rule() + ")";
            }
            SandboxLocator.Position at = locator.locate(function, message, source.lines().toList());
            problems.add(file + (at == null ? ": " + function : ":" + at.line() + ":" + at.column()) + ": " + indent(message));
        } catch (ChainException e) {
            problems.add(file + ": " + function + ": " + e.getClass().getSimpleName() + ": " + indent(message(e)));
        } catch (RuntimeException | LinkageError e) {
            problems.add(file + ": " + function + ": the check failed: " + e);
            getLog().debug(e);
        }
    }

    /** The server's message, without the hop and path that the exception adds (meaningless at build time). */
    private static String message(ChainException e) {
        String m = e.failure() == null ? null : e.failure().message();
        return m == null ? e.getMessage() : m;
    }

    private static String indent(String message) {
        return message.strip().replace("\n", "\n    ");
    }

    private void fail(List<String> problems, int functions) throws MojoFailureException {
        if (problems.isEmpty()) {
            return;
        }
        for (String p : problems) {
            getLog().error(p);
        }
        StringBuilder sb = new StringBuilder("rpcc: an rpcc server would refuse ")
                .append(functions == 1 ? "this chaining function" : functions > 1 ? "chaining functions of this project"
                        : "this project's types")
                .append(" (").append(problems.size()).append(problems.size() == 1 ? " problem" : " problems").append("):");
        for (String p : problems) {
            sb.append(System.lineSeparator()).append(p);
        }
        throw new MojoFailureException(sb.toString());
    }

    /** The project's class path: its classes first, then its compile and runtime class path elements. */
    private URL[] classPath(Path classes) throws MojoExecutionException {
        Set<String> elements = new LinkedHashSet<>();
        elements.add(classes.toString());
        try {
            elements.addAll(project.getCompileClasspathElements());
            elements.addAll(project.getRuntimeClasspathElements());
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("rpcc: the project's dependencies are not resolved: " + e.getMessage(), e);
        }
        List<URL> urls = new ArrayList<>();
        for (String e : elements) {
            try {
                urls.add(Path.of(e).toAbsolutePath().toUri().toURL());
            } catch (MalformedURLException ex) {
                throw new MojoExecutionException("rpcc: bad class path element " + e, ex);
            }
        }
        getLog().debug("rpcc: project class path " + urls);
        return urls.toArray(URL[]::new);
    }

    /** The binary names of the classes under {@code classes}, sorted (META-INF, module-info and package-info left out). */
    private static List<String> classNames(Path classes) throws MojoExecutionException {
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(p -> p.toString().endsWith(".class") && Files.isRegularFile(p))
                    .map(p -> classes.relativize(p).toString().replace(File.separatorChar, '/'))
                    .filter(p -> !p.startsWith("META-INF/") && !p.endsWith("module-info.class") && !p.endsWith("package-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new MojoExecutionException("rpcc: cannot list " + classes + ": " + e.getMessage(), e);
        }
    }

    private static Path find(List<Path> roots, String relative) {
        for (Path root : roots) {
            Path p = root.resolve(relative);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }
}
