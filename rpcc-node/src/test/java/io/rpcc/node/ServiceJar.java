package io.rpcc.node;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Builds a user's services jar for the tests: Java sources compiled against rpcc, plus resources. */
final class ServiceJar {
    private final Map<String, String> sources = new LinkedHashMap<>();
    private final Map<String, String> resources = new LinkedHashMap<>();

    /** Adds the source of class {@code className}. */
    ServiceJar source(String className, String source) {
        sources.put(className, source);
        return this;
    }

    /** Lists {@code providerClass} as a {@link ServiceModule} provider. */
    ServiceJar serviceModule(String providerClass) {
        resources.merge("META-INF/services/" + ServiceModule.class.getName(), providerClass + "\n", String::concat);
        return this;
    }

    /** Compiles the sources and writes the jar to {@code jar}. */
    Path writeTo(Path jar) throws IOException {
        Path work = Files.createTempDirectory("rpcc-service-jar");
        Path src = work.resolve("src");
        Path classes = Files.createDirectories(work.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("--release", "21", "-proc:none", "-parameters",
                "-classpath", System.getProperty("java.class.path"), "-d", classes.toString()));
        for (var e : sources.entrySet()) {
            Path file = src.resolve(e.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac.run(null, null, System.err, args.toArray(String[]::new)) != 0) {
            throw new IllegalStateException("the test's service sources do not compile (see the output)");
        }
        Files.createDirectories(jar.toAbsolutePath().getParent());
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
            for (var e : resources.entrySet()) {
                out.putNextEntry(new JarEntry(e.getKey()));
                write(out, e.getValue());
                out.closeEntry();
            }
        }
        return jar;
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The jar the tests use: a module ("echo", "count" with partial replies, a registered type) and a @ServiceMethod class ("greet"). */
    static ServiceJar demo() {
        return new ServiceJar()
                .source("demo.Item", """
                        package demo;
                        public record Item(String name, int quantity) {}
                        """)
                .source("demo.DemoModule", """
                        package demo;
                        import io.rpcc.core.ChainContext;
                        import io.rpcc.core.TypeRegistry;
                        import io.rpcc.node.ServiceModule;
                        import io.rpcc.server.RpccServer;
                        public final class DemoModule implements ServiceModule {
                            @Override public void registerTypes(TypeRegistry.Builder types) {
                                types.register(Item.class);
                            }
                            @Override public void configure(RpccServer.Builder server) {
                                server.service("echo", params -> params)
                                      .service("item", params -> new Item((String) params, 3))
                                      .service("count", params -> {
                                          int n = (Integer) params;
                                          for (int i = 1; i <= n; i++) {
                                              ChainContext.current().preturn("part " + i);
                                          }
                                          return "counted " + n + " at " + ChainContext.current().node();
                                      });
                            }
                        }
                        """)
                .serviceModule("demo.DemoModule")
                .source("demo.Greeter", """
                        package demo;
                        import io.rpcc.core.ServiceMethod;
                        public class Greeter {
                            @ServiceMethod("greet")
                            public String greet(String who) { return "hello " + who; }
                        }
                        """);
    }
}
