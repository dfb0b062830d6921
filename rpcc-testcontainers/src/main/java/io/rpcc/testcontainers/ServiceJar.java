package io.rpcc.testcontainers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Packs service classes of the test's class path into a jar for a node's services directory: each
 * class with its outermost class and all the classes nested in that ({@code Outer$*.class}), read from the
 * directory or jar the class was loaded from. Classes that implement the node's
 * {@value #SERVICE_MODULE} are listed as its {@code ServiceLoader} providers in the jar.
 */
final class ServiceJar {
    /** The node's service-module SPI (in rpcc-node, which this module does not depend on). */
    static final String SERVICE_MODULE = "io.rpcc.node.ServiceModule";

    private ServiceJar() {
    }

    /** Whether {@code c} implements the node's {@value #SERVICE_MODULE}. */
    static boolean isServiceModule(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Class<?> i : k.getInterfaces()) {
                if (i.getName().equals(SERVICE_MODULE) || isServiceModule(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The bytes of a jar holding {@code classes} and their nested classes. */
    static byte[] of(List<Class<?>> classes) {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        for (Class<?> c : classes) {
            checkLoadableByName(c);
            Class<?> outermost = c;
            while (outermost.getEnclosingClass() != null) {
                outermost = outermost.getEnclosingClass();
            }
            for (String name : classFiles(outermost)) {
                entries.put(name, read(outermost, name));
            }
        }
        String providers = classes.stream().filter(ServiceJar::isServiceModule).map(Class::getName)
                .reduce("", (a, b) -> a + b + "\n");
        if (!providers.isEmpty()) {
            entries.put("META-INF/services/" + SERVICE_MODULE, providers.getBytes(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().putValue("Manifest-Version", "1.0");
        try (JarOutputStream jar = new JarOutputStream(bytes, manifest)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                jar.putNextEntry(new JarEntry(e.getKey()));
                jar.write(e.getValue());
                jar.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The node instantiates a service class by name: public, top-level or static nested. */
    private static void checkLoadableByName(Class<?> c) {
        if (c.isAnonymousClass() || c.isLocalClass() || c.isSynthetic()
                || (c.isMemberClass() && !Modifier.isStatic(c.getModifiers()))) {
            throw new IllegalArgumentException(c.getName() + " cannot be loaded by name: a service class must be a"
                    + " top-level or static nested class with a public no-argument constructor");
        }
        if (!Modifier.isPublic(c.getModifiers())) {
            throw new IllegalArgumentException(c.getName() + " is not public: the node instantiates service classes by name,"
                    + " so they must be public with a public no-argument constructor");
        }
    }

    /** The jar entries of {@code c} and of the classes nested in it. */
    private static List<String> classFiles(Class<?> c) {
        String own = c.getName().replace('.', '/') + ".class";
        String nestedPrefix = c.getName().replace('.', '/') + "$";
        List<String> names = new ArrayList<>();
        names.add(own);
        CodeSource source = c.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return names; // a class without a code source (JDK, generated): its nested classes cannot be listed
        }
        Path location;
        try {
            location = Path.of(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return names;
        }
        try {
            if (Files.isDirectory(location)) {
                Path dir = location.resolve(own).getParent();
                try (Stream<Path> files = Files.list(dir)) {
                    files.map(f -> location.relativize(f).toString().replace('\\', '/'))
                            .filter(n -> n.startsWith(nestedPrefix) && n.endsWith(".class"))
                            .sorted()
                            .forEach(names::add);
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    jar.stream().map(JarEntry::getName)
                            .filter(n -> n.startsWith(nestedPrefix) && n.endsWith(".class"))
                            .sorted()
                            .forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the classes nested in " + c.getName() + " at " + location, e);
        }
        return names;
    }

    private static byte[] read(Class<?> c, String entry) {
        URL url = c.getClassLoader() == null ? null : c.getClassLoader().getResource(entry);
        if (url == null) {
            throw new IllegalArgumentException("cannot read " + entry + " from the class path of " + c.getName());
        }
        try (InputStream in = url.openStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + entry, e);
        }
    }
}
