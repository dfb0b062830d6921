package io.rpcc.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's hello chain runs as shown and prints what the README says it prints. */
class ReadmeHelloChainTest {

    @Test
    void helloChainRunsAsTheReadmeSays(@TempDir Path dir) throws Exception {
        Path readme = DocSnippetsTest.root().resolve("README.md");
        Markdown.Snippet hello = Markdown.snippets(readme).stream()
                .filter(s -> s.body().contains("public class HelloChain"))
                .findFirst().orElseThrow(() -> new AssertionError("README.md has no HelloChain snippet"));
        Path source = dir.resolve("HelloChain.java");
        Files.writeString(source, hello.body());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-proc:none", "-classpath", DocSnippetsTest.classPath(),
                "-d", dir.toString(), source.toString());
        assertEquals(0, rc, "README.md:" + hello.line() + ": HelloChain does not compile");

        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("HelloChain").getMethod("main", String[].class);
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(out);
        }
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        out.println(String.join("\n", lines));
        // the README shows this output, replies in either order
        List<String> shown = readmeOutput(readme);
        assertEquals(Set.copyOf(shown), Set.copyOf(lines), "HelloChain printed " + lines + ", README.md shows " + shown);
        assertTrue(lines.get(lines.size() - 1).startsWith("result: "), "the result comes last: " + lines);
    }

    /** The plain fence right after the HelloChain block. */
    private static List<String> readmeOutput(Path readme) throws Exception {
        String text = Files.readString(readme);
        int after = text.indexOf("```", text.indexOf("public class HelloChain"));
        int open = text.indexOf("```\n", after + 3);
        int close = text.indexOf("\n```", open + 4);
        return text.substring(open + 4, close).lines().map(String::strip).collect(Collectors.toList());
    }
}
