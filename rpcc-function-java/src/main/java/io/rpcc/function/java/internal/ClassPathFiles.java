package io.rpcc.function.java.internal;

import io.rpcc.core.spi.LoaderClassPath;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.tools.FileObject;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;

/**
 * The class files of a {@link LoaderClassPath} as javac's file objects, kept by a
 * {@link JavaFunctionCompiler} between its compilations: every compilation lists again the packages
 * it resolves names in and reads again the classes it uses (javac's symbol table is new in each
 * one), and a class loader's class path does not change. So each package is listed once, and each
 * class file read once, through the loader as before (so javac still compiles against the bytes the
 * function will run with); at most {@link #MAX_CACHED_BYTES} of them are kept, beyond that they are
 * read each time.
 */
final class ClassPathFiles {
    /** Bytes of class files kept at most, per compiler (per node). */
    static final long MAX_CACHED_BYTES = 8L << 20;

    private final LoaderClassPath classPath;
    /** Package → its class files; only packages with classes (javac also asks for many without). */
    private final Map<String, List<JavaFileObject>> byPackage = new ConcurrentHashMap<>();
    private final AtomicLong cachedBytes = new AtomicLong();

    ClassPathFiles(LoaderClassPath classPath) {
        this.classPath = classPath;
    }

    /** The class path these files are on. */
    LoaderClassPath classPath() {
        return classPath;
    }

    /** The class files in {@code packageName}, not in its sub-packages. */
    List<JavaFileObject> list(String packageName) {
        List<JavaFileObject> known = byPackage.get(packageName);
        if (known != null) {
            return known;
        }
        List<String> resources = classPath.classes(packageName);
        if (resources.isEmpty()) {
            return List.of();
        }
        List<JavaFileObject> files = new ArrayList<>(resources.size());
        for (String resource : resources) {
            files.add(new LoadedClass(resource));
        }
        List<JavaFileObject> listed = List.copyOf(files);
        known = byPackage.putIfAbsent(packageName, listed);
        return known == null ? listed : known;
    }

    /** The binary name of {@code file}, or {@code null} if it is not one of these. */
    static String binaryName(FileObject file) {
        return file instanceof LoadedClass c ? c.binaryName : null;
    }

    /** A class file on the function class loader's class path. */
    private final class LoadedClass extends SimpleJavaFileObject {
        private final String resource;
        private final String binaryName;
        private volatile byte[] contents;

        LoadedClass(String resource) {
            super(uri(resource), Kind.CLASS);
            this.resource = resource;
            this.binaryName = resource.substring(0, resource.length() - Kind.CLASS.extension.length()).replace('/', '.');
        }

        private static URI uri(String resource) {
            try {
                return new URI("rpcc-class-path", null, "/" + resource, null);
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("not a class file name: " + resource, e);
            }
        }

        @Override
        public InputStream openInputStream() throws IOException {
            byte[] known = contents;
            if (known != null) {
                return new ByteArrayInputStream(known);
            }
            byte[] read;
            try (InputStream in = classPath.open(resource)) {
                read = in.readAllBytes();
            }
            if (cachedBytes.addAndGet(read.length) <= MAX_CACHED_BYTES) {
                contents = read; // two compilations reading it at once both count it: an approximate bound
            } else {
                cachedBytes.addAndGet(-read.length);
            }
            return new ByteArrayInputStream(read);
        }

        @Override
        public String getName() {
            return resource;
        }

        @Override
        public NestingKind getNestingKind() {
            return null;
        }

        @Override
        public Modifier getAccessLevel() {
            return null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LoadedClass other && other.resource.equals(resource);
        }

        @Override
        public int hashCode() {
            return resource.hashCode();
        }
    }
}
