package io.rpcc.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.ThrowsDeclaration;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * rpcc's structural rules, as ArchUnit rules over a set of imported classes (and, for what class files
 * do not keep, such as Javadoc, over source trees). {@link ArchitectureTest} applies them to the
 * production code of every module; {@link ArchitectureRulesTest} shows that each rule fails on a
 * fixture that breaks it.
 */
final class ArchitectureRules {
    /**
     * The API classes allowed to reach the implementation: the node builders (rpcc-core's
     * {@code NodeBuilder} and the facades' builders), the node facades, {@code FunctionCheck} (a node's
     * function compiler and sandbox, outside a node), the standalone node's main class, and the entry
     * points of tracing and metrics ({@code RpccTracing}, {@code RpccMetrics}), and the legacy wrappers'
     * builders ({@code LegacyGrpc}, {@code LegacyHttp}), and the atomic chains' state and transaction
     * ({@code TxVar}, {@code TxMap}, {@code Transaction}: each operation is the transaction engine's). Everything
     * else in an API package talks only to other API types (rpcc-api cannot even see the implementation).
     */
    static final Set<String> FACADES = Set.of(
            "io.rpcc.core.runtime.NodeBuilder", "io.rpcc.core.runtime.FunctionCheck",
            "io.rpcc.server.RpccServer", "io.rpcc.server.RpccServer$Builder",
            "io.rpcc.client.RpccClient", "io.rpcc.client.RpccClient$Builder",
            "io.rpcc.node.RpccNode", "io.rpcc.observability.RpccTracing", "io.rpcc.observability.RpccMetrics",
            "io.rpcc.legacy.LegacyGrpc", "io.rpcc.legacy.LegacyGrpc$Builder",
            "io.rpcc.legacy.LegacyHttp", "io.rpcc.legacy.LegacyHttp$Builder",
            "io.rpcc.server.atomic.TxVar", "io.rpcc.server.atomic.TxMap", "io.rpcc.server.atomic.Transaction");

    private ArchitectureRules() {
    }

    static boolean isInternal(JavaClass c) {
        return c.getPackageName().contains(".internal");
    }

    /** A public API class exposes no internal type: supertypes, public fields, public methods and constructors. */
    static ArchRule noInternalTypeInPublicSignatures(String rootPackage) {
        return classes().that().resideInAPackage(rootPackage + "..")
                .and(DescribedPredicate.describe("are API (outside internal packages)", (JavaClass c) -> !isInternal(c)))
                .and(DescribedPredicate.describe("are visible from outside their package", ArchitectureRules::isExported))
                .should(exposeNoInternalType())
                .allowEmptyShould(true);
    }

    /** API classes other than the facades do not depend on internal classes at all. */
    static ArchRule apiReachesInternalsOnlyThroughFacades(String rootPackage) {
        return noClasses().that().resideInAPackage(rootPackage + "..")
                .and(DescribedPredicate.describe("are API (outside internal packages)", (JavaClass c) -> !isInternal(c)))
                .and(DescribedPredicate.describe("are not facades", (JavaClass c) -> !isFacade(c)))
                .should().dependOnClassesThat(DescribedPredicate.describe("are internal", ArchitectureRules::isInternal))
                .allowEmptyShould(true);
    }

    /**
     * The classes of the core module (under {@code corePackage}) depend neither on ASM nor on the JDK's
     * compiler ({@code javax.tools}, {@code javax.lang.model}): compiling and sandboxing Java functions
     * is a plug-in's job (rpcc-function-java), and a client needs neither.
     */
    static ArchRule coreCarriesNoCompiler(String corePackage) {
        return noClasses().that().resideInAPackage(corePackage + "..")
                .should().dependOnClassesThat().resideInAnyPackage("org.objectweb.asm..", "javax.tools..",
                        "javax.lang.model..")
                .allowEmptyShould(true);
    }

    /**
     * A plug-in module (its classes under {@code pluginPackage}, such as rpcc-js's {@code io.rpcc.js})
     * uses of the other modules only their API and SPI: no internal class but its own.
     */
    static ArchRule pluginUsesOnlyApiAndSpi(String pluginPackage) {
        return noClasses().that().resideInAPackage(pluginPackage + "..")
                .should().dependOnClassesThat(DescribedPredicate.describe("are internal classes of another module",
                        (JavaClass c) -> isInternal(c) && !c.getPackageName().startsWith(pluginPackage + ".")))
                .allowEmptyShould(true);
    }

    /** The annotation that puts an internal type into the engine SPI between rpcc's modules. */
    static final String ENGINE_SPI = "io.rpcc.core.spi.EngineSpi";

    /**
     * A class uses the internal classes of another module only where they are part of the engine SPI
     * (the type, or the top-level type it is nested in, carries {@code @EngineSpi}): the layers (API,
     * transport, runtime, facades) meet only at types written down as their contract.
     *
     * @param moduleOf the module a class belongs to, or {@code null} for a class that is not rpcc's
     */
    static ArchRule internalsCrossModulesOnlyThroughTheEngineSpi(Function<JavaClass, @Nullable String> moduleOf) {
        return classes().should(new ArchCondition<JavaClass>(
                "use another module's internal classes only where they are part of the engine SPI (@EngineSpi)") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String mine = moduleOf.apply(c);
                if (mine == null) {
                    return;
                }
                Set<String> reported = new TreeSet<>();
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass().getBaseComponentType();
                    String theirs = isInternal(target) ? moduleOf.apply(target) : null;
                    if (theirs == null || theirs.equals(mine) || topLevel(target).isAnnotatedWith(ENGINE_SPI)
                            || !reported.add(target.getName())) {
                        continue;
                    }
                    events.add(SimpleConditionEvent.violated(c, c.getName() + " (" + mine + ") uses "
                            + target.getName() + " (" + theirs + "), an internal class that is not part of the"
                            + " engine SPI: use the API, or mark the type @EngineSpi if it is meant to be shared"));
                }
            }
        }).allowEmptyShould(true);
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }

    private static final Pattern JAR = Pattern.compile("/(rpcc-[a-z0-9-]+?)-\\d[^/]*\\.jar!");

    /**
     * The rpcc module a class was imported from: the module directory of its {@code target/classes},
     * or the artifact of its jar; {@code null} for anything else.
     */
    static @Nullable String moduleOfClassFile(JavaClass c) {
        String uri = c.getSource().map(source -> source.getUri().toString()).orElse("");
        int classes = uri.indexOf("/target/classes/");
        if (classes > 0) {
            String module = uri.substring(0, classes);
            return module.substring(module.lastIndexOf('/') + 1);
        }
        Matcher jar = JAR.matcher(uri);
        return jar.find() ? jar.group(1) : null;
    }

    /** No cycles among internal packages (each internal package is one slice). */
    static ArchRule internalPackagesAreFreeOfCycles(String rootPackage) {
        return slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith(rootPackage) && isInternal(c)
                        ? SliceIdentifier.of(c.getPackageName()) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "internal packages under " + rootPackage;
            }
        }).should().beFreeOfCycles().allowEmptyShould(true);
    }

    /**
     * No internal enum mirrors a public one: an internal enum with every constant of a public enum (of
     * two or more) is a second vocabulary for the same thing, as {@code ErrorCode} was for
     * {@code ChainErrorCode}. Internal code uses the public enum, and keeps what only the
     * implementation needs in a table keyed by it.
     */
    static ArchRule noInternalEnumMirrorsAPublicOne(String rootPackage) {
        return classes().that().resideInAPackage(rootPackage + "..").and().areEnums()
                .should(notMirrorAPublicEnum())
                .allowEmptyShould(true);
    }

    private static ArchCondition<JavaClass> notMirrorAPublicEnum() {
        return new ArchCondition<>("not have every constant of a public enum, if internal") {
            private final Map<String, Set<String>> publicEnums = new TreeMap<>();

            @Override
            public void init(Collection<JavaClass> all) {
                for (JavaClass c : all) {
                    if (!isInternal(c) && isExported(c) && c.getEnumConstants().size() >= 2) {
                        publicEnums.put(c.getName(), constants(c));
                    }
                }
            }

            @Override
            public void check(JavaClass c, ConditionEvents events) {
                if (!isInternal(c)) {
                    return;
                }
                Set<String> own = constants(c);
                publicEnums.forEach((name, constants) -> {
                    if (own.containsAll(constants)) {
                        events.add(SimpleConditionEvent.violated(c, c.getName() + " mirrors public enum " + name
                                + ": it has every one of its constants"));
                    }
                });
            }
        };
    }

    private static Set<String> constants(JavaClass c) {
        Set<String> names = new TreeSet<>();
        c.getEnumConstants().forEach(k -> names.add(k.name()));
        return names;
    }

    /** The most parameters an internal method or constructor may take. */
    static final int MAX_PARAMETERS = 7;

    /**
     * No internal method or constructor takes more than {@value #MAX_PARAMETERS} parameters: what
     * travels together is one value (a record, a builder). Counted as written: a record's canonical
     * constructor counts its components; methods the compiler makes (lambdas, bridges), the outer
     * instance an inner class's constructor takes, an enum constructor's name and ordinal, and the
     * constructors of anonymous and local classes (which take what they capture) are left out. Classes
     * named in {@code exempt} (binary names, such as {@code Outer$Nested}), and the classes nested in them,
     * are not checked.
     */
    static ArchRule internalCodeTakesAtMostSevenParameters(String rootPackage, Set<String> exempt) {
        return classes().that().resideInAPackage(rootPackage + "..")
                .and(DescribedPredicate.describe("are internal", ArchitectureRules::isInternal))
                .and(DescribedPredicate.describe("are not exempt", (JavaClass c) -> !isIn(c, exempt)))
                .should(takeAtMostSevenParameters())
                .allowEmptyShould(true);
    }

    /** Whether {@code c}, or a class it is nested in, is named in {@code names}. */
    private static boolean isIn(JavaClass c, Set<String> names) {
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (names.contains(k.getName())) {
                return true;
            }
        }
        return false;
    }

    private static ArchCondition<JavaClass> takeAtMostSevenParameters() {
        return new ArchCondition<>("take at most " + MAX_PARAMETERS + " parameters in any method or constructor") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    Set<JavaModifier> mods = u.getModifiers();
                    if (mods.contains(JavaModifier.SYNTHETIC) || mods.contains(JavaModifier.BRIDGE)
                            || u.getName().equals("<clinit>")) {
                        continue;
                    }
                    int n = u.getRawParameterTypes().size();
                    if (u.getName().equals("<init>")) {
                        if (c.isAnonymousClass() || c.isLocalClass()) {
                            continue; // what it takes is what it captures
                        }
                        if (c.isEnum()) {
                            n -= 2; // the constant's name and ordinal
                        } else if (c.isInnerClass()) {
                            n -= 1; // the outer instance
                        }
                    }
                    if (n > MAX_PARAMETERS) {
                        String what = u.getName().equals("<init>") ? "constructor" : "method " + u.getName() + "()";
                        events.add(SimpleConditionEvent.violated(c, c.getName() + ": " + what + " takes " + n
                                + " parameters (at most " + MAX_PARAMETERS + ": group them into a value)"));
                    }
                }
            }
        };
    }

    private static boolean isFacade(JavaClass c) {
        JavaClass outer = c;
        while (outer.getEnclosingClass().isPresent() && !FACADES.contains(outer.getName())) {
            outer = outer.getEnclosingClass().get(); // lambdas and anonymous classes of a facade
        }
        return FACADES.contains(outer.getName());
    }

    /** Public, and nested only in public classes. */
    private static boolean isExported(JavaClass c) {
        for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
            if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isVisible(JavaMember m) {
        Set<JavaModifier> mods = m.getModifiers();
        boolean overridable = !m.getOwner().getModifiers().contains(JavaModifier.FINAL) && !m.getOwner().isEnum()
                && !m.getOwner().isRecord();
        return !mods.contains(JavaModifier.SYNTHETIC) && !mods.contains(JavaModifier.BRIDGE)
                && (mods.contains(JavaModifier.PUBLIC) || (overridable && mods.contains(JavaModifier.PROTECTED)));
    }

    private static ArchCondition<JavaClass> exposeNoInternalType() {
        return new ArchCondition<>("expose no internal type in a public signature") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<String> leaks = new ArrayList<>();
                c.getSuperclass().ifPresent(t -> leaks(t, "extends", leaks));
                c.getInterfaces().forEach(t -> leaks(t, "implements", leaks));
                for (JavaField f : c.getFields()) {
                    if (isVisible(f)) {
                        leaks(f.getType(), "field " + f.getName(), leaks);
                    }
                }
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    if (!isVisible(u) || u.getName().equals("<clinit>")) {
                        continue;
                    }
                    String where = u.getName().equals("<init>") ? "constructor" : "method " + u.getName() + "()";
                    leaks(u.getReturnType(), where + " returns", leaks);
                    u.getParameterTypes().forEach(t -> leaks(t, where + " takes", leaks));
                    for (ThrowsDeclaration<?> t : u.getThrowsClause()) {
                        leaks(t.getRawType(), where + " throws", leaks);
                    }
                }
                for (String leak : leaks) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + ": " + leak));
                }
            }
        };
    }

    private static void leaks(JavaType t, String where, List<String> leaks) {
        for (JavaClass raw : t.getAllInvolvedRawTypes()) {
            if (isInternal(raw)) {
                leaks.add(where + " internal type " + raw.getName());
            }
        }
    }

    /**
     * The packages of a source tree (such as a module's {@code src/main/java}) that have no
     * {@code package-info.java}, or one without a Javadoc comment before its package declaration, each
     * with what is wrong. A package is a directory that holds {@code .java} files.
     */
    static List<String> packagesWithoutJavadoc(Path sourceRoot) throws IOException {
        Set<Path> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            files.filter(f -> f.getFileName().toString().endsWith(".java") && Files.isRegularFile(f))
                    .forEach(f -> packages.add(f.getParent()));
        }
        List<String> missing = new ArrayList<>();
        for (Path dir : packages) {
            String name = sourceRoot.relativize(dir).toString().replace(dir.getFileSystem().getSeparator(), ".");
            Path info = dir.resolve("package-info.java");
            if (!Files.isRegularFile(info)) {
                missing.add(name + ": no package-info.java in " + dir);
            } else if (!hasJavadocBeforeDeclaration(Files.readString(info, StandardCharsets.UTF_8))) {
                missing.add(name + ": " + info + " has no Javadoc comment (/** ... */) before its package declaration");
            }
        }
        return missing;
    }

    /** Whether the comments before the first annotation or keyword of {@code source} include a Javadoc comment with text. */
    static boolean hasJavadocBeforeDeclaration(String source) {
        int i = 0;
        while (i < source.length()) {
            if (Character.isWhitespace(source.charAt(i))) {
                i++;
            } else if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = end < 0 ? source.length() : end + 1;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                if (end < 0) {
                    return false;
                }
                if (source.startsWith("/**", i) && end > i + 2
                        && !source.substring(i + 3, end).replaceAll("[\\s*]", "").isEmpty()) {
                    return true;
                }
                i = end + 2;
            } else {
                return false; // an annotation or the package declaration: no Javadoc before it
            }
        }
        return false;
    }

    /**
     * The prefix of the reserved service-function names of rpcc's own requests ({@code rpcc.return},
     * {@code rpcc.merge}, ...), which the server spells in one place and dispatches on as a kind.
     */
    static final String RESERVED_PREFIX = "rpcc.";

    /**
     * The reserved names that {@code kinds}, the source of the one type that names the kinds of
     * requests, spells: its string literals that start with {@link #RESERVED_PREFIX} and go on.
     */
    static Set<String> reservedNames(Path kinds) throws IOException {
        String source = Files.readString(kinds, StandardCharsets.UTF_8);
        Set<String> names = new TreeSet<>();
        for (int[] literal : stringLiterals(source)) {
            String text = source.substring(literal[0], literal[1]);
            if (text.startsWith(RESERVED_PREFIX) && text.length() > RESERVED_PREFIX.length()) {
                names.add(text);
            }
        }
        return names;
    }

    /**
     * The string literals of the Java files under {@code sourceRoot} that spell one of the
     * {@code reserved} names, except in the files whose paths (relative to {@code sourceRoot}, with {@code /}) are in {@code allowed}:
     * each as {@code path:line: "literal"}, in file order. Comments, character literals and text blocks
     * are not string literals. A reserved name spelled anywhere else is a dispatch (or a send) on it as
     * a string, which must go through the one type that names the kinds of requests.
     */
    static List<String> reservedNameLiterals(Path sourceRoot, Set<String> reserved, Set<String> allowed)
            throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            files = walk.filter(f -> f.getFileName().toString().endsWith(".java") && Files.isRegularFile(f))
                    .sorted().toList();
        }
        List<String> found = new ArrayList<>();
        for (Path f : files) {
            String rel = sourceRoot.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
            if (allowed.contains(rel)) {
                continue;
            }
            String source = Files.readString(f, StandardCharsets.UTF_8);
            for (int[] literal : stringLiterals(source)) {
                String text = source.substring(literal[0], literal[1]);
                if (reserved.contains(text)) {
                    found.add(rel + ":" + line(source, literal[0]) + ": \"" + text + "\"");
                }
            }
        }
        return found;
    }

    /** The contents (start inclusive, end exclusive) of the string literals of {@code source}, escapes as written. */
    static List<int[]> stringLiterals(String source) {
        List<int[]> literals = new ArrayList<>();
        int i = 0;
        int n = source.length();
        while (i < n) {
            if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (source.startsWith("\"\"\"", i)) { // a text block
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 3;
            } else if (source.charAt(i) == '\'' || source.charAt(i) == '"') {
                char quote = source.charAt(i);
                int start = i + 1;
                int j = start;
                while (j < n && source.charAt(j) != quote && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                if (quote == '"') {
                    literals.add(new int[] {start, Math.min(j, n)});
                }
                i = j + 1;
            } else {
                i++;
            }
        }
        return literals;
    }

    private static int line(String source, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (source.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
