package io.rpcc.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/**&#47;*.md compiles, and every relative link of
 * README.md, CHANGELOG.md and docs/ points at a file (and heading) that exists. The conventions are
 * in docs/contributing.md ("Documentation"): {@link Markdown.Snippet#source()} says how a block
 * becomes a compilation unit.
 */
class DocSnippetsTest {

    static Path root() {
        return Path.of(System.getProperty("rpcc.docs.root", "..")).toAbsolutePath().normalize();
    }

    static List<Path> markdownFiles() throws IOException {
        Path root = root();
        List<Path> files = new ArrayList<>();
        for (String top : List.of("README.md", "CHANGELOG.md")) {
            if (Files.exists(root.resolve(top))) {
                files.add(root.resolve(top));
            }
        }
        try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        return files;
    }

    @Test
    void everyJavaSnippetCompiles() throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "no system Java compiler: run the tests on a JDK");
        List<String> failures = new ArrayList<>();
        int count = 0;
        try (StandardJavaFileManager standard = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8)) {
            JavaFileManager discardOutput = new DiscardingFileManager(standard);
            List<String> options = List.of("--release", "21", "-proc:none", "-implicit:none", "-Xlint:none",
                    "-classpath", classPath());
            for (Path file : markdownFiles()) {
                String where = root().relativize(file).toString();
                // snippets of one file with the same group= directive compile together, each others' types visible
                Map<String, List<Markdown.Snippet>> tasks = new LinkedHashMap<>();
                for (Markdown.Snippet snippet : Markdown.snippets(file)) {
                    String key = snippet.group() != null ? "group " + snippet.group() : "line " + snippet.line();
                    tasks.computeIfAbsent(key, k -> new ArrayList<>()).add(snippet);
                }
                for (List<Markdown.Snippet> task : tasks.values()) {
                    count += task.size();
                    Map<JavaFileObject, Markdown.Snippet> units = new LinkedHashMap<>();
                    for (Markdown.Snippet snippet : task) {
                        units.put(new Source(snippet.className(), snippet.source()), snippet);
                    }
                    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
                    boolean ok = javac.getTask(null, discardOutput, diagnostics, options, null, units.keySet()).call();
                    if (ok) {
                        continue;
                    }
                    Map<Markdown.Snippet, StringBuilder> reports = new LinkedHashMap<>();
                    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                        if (d.getKind() != Diagnostic.Kind.ERROR) {
                            continue;
                        }
                        Markdown.Snippet snippet = units.getOrDefault(d.getSource(), task.get(0));
                        long line = snippet.markdownLine(d.getLineNumber());
                        reports.computeIfAbsent(snippet, s -> new StringBuilder(where + ":" + s.line()
                                        + ": the ```java block starting here does not compile"
                                        + (s.group() != null ? " (group " + s.group() + ")" : "") + ":"))
                                .append("\n    ").append(where).append(':').append(line).append(": ")
                                .append(d.getMessage(Locale.ROOT).replace("\n", "\n      "));
                    }
                    reports.values().forEach(r -> failures.add(r.toString()));
                }
            }
        }
        assertTrue(count > 0, "found no ```java blocks under " + root());
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + count + " Java snippets do not compile "
                    + "(conventions: docs/contributing.md, \"Documentation\"):\n" + String.join("\n", failures));
        }
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path file : markdownFiles()) {
            broken.addAll(Markdown.brokenLinks(root(), file));
        }
        assertEquals(List.of(), broken, "broken links (each must be a relative path to a file, or file#heading, in the repository)");
    }

    @Test
    void theReadmeStaysShortAndNamesTheTestCommand() throws IOException {
        List<String> lines = Files.readAllLines(root().resolve("README.md"));
        assertTrue(lines.size() <= 220, "README.md has " + lines.size() + " lines: move detail into docs/");
        assertTrue(lines.stream().anyMatch(l -> l.contains("./rpcc test")), "README.md must name the test command, ./rpcc test");
    }

    /** The class path the snippets compile against: the test's own (the pom turns off Surefire's manifest-only jar). */
    static String classPath() {
        return System.getProperty("java.class.path");
    }

    private static final class Source extends SimpleJavaFileObject {
        private final String code;

        Source(String className, String code) {
            super(URI.create("string:///" + className.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return code;
        }
    }

    /** Compiles without writing class files anywhere. */
    private static final class DiscardingFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
        DiscardingFileManager(StandardJavaFileManager m) {
            super(m);
        }

        @Override
        public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                                                   FileObject sibling) {
            return new SimpleJavaFileObject(URI.create("discard:///" + className.replace('.', '/') + kind.extension), kind) {
                @Override
                public OutputStream openOutputStream() {
                    return OutputStream.nullOutputStream();
                }
            };
        }
    }
}
