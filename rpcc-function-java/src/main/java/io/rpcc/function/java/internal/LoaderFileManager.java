package io.rpcc.function.java.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardLocation;

/**
 * The file manager of one compilation of a chaining function: the JDK's classes as Java 21's API
 * from a {@link ReleaseFileManager}, the class path from a {@link ClassPathFiles} (the classes the
 * node's function class loader sees, listed and read once per compiler), and the output in memory.
 */
final class LoaderFileManager extends ForwardingJavaFileManager<ReleaseFileManager> {
    /** Sees the JDK's own classes only (no parent but the boot loader), and so no plug-in or processor. */
    private static final ClassLoader NO_PLUG_INS = new ClassLoader("rpcc-no-javac-plug-ins", null) { };

    private final ClassPathFiles classPath;
    private final Map<String, byte[]> output;

    LoaderFileManager(ReleaseFileManager jdk, ClassPathFiles classPath, Map<String, byte[]> output) {
        super(jdk);
        this.classPath = classPath;
        this.output = output;
    }

    /**
     * The class loader javac looks for plug-ins and annotation processors with (in every
     * compilation, {@code -proc:none} or not): one that finds none. javac's own would be a new loader
     * over the JVM's whole class path, searched each time; and nothing of the application's is to run
     * inside a function's compilation.
     */
    @Override
    public ClassLoader getClassLoader(Location location) {
        return NO_PLUG_INS;
    }

    @Override
    public boolean hasLocation(Location location) {
        return location == StandardLocation.CLASS_PATH || super.hasLocation(location);
    }

    @Override
    public Iterable<JavaFileObject> list(Location location, String packageName, Set<JavaFileObject.Kind> kinds,
                                         boolean recurse) throws IOException {
        if (location != StandardLocation.CLASS_PATH) {
            return super.list(location, packageName, kinds, recurse);
        }
        if (!kinds.contains(JavaFileObject.Kind.CLASS)) {
            return List.of(); // no sources on the class path: a function is one file
        }
        if (!recurse) {
            return classPath.list(packageName);
        }
        List<JavaFileObject> out = new ArrayList<>(classPath.list(packageName));
        String prefix = packageName + ".";
        for (String pkg : classPath.classPath().packages()) {
            if (pkg.startsWith(prefix)) {
                out.addAll(classPath.list(pkg));
            }
        }
        return out;
    }

    @Override
    public String inferBinaryName(Location location, JavaFileObject file) {
        String name = ClassPathFiles.binaryName(file);
        return name != null ? name : super.inferBinaryName(location, file);
    }

    @Override
    public boolean isSameFile(FileObject a, FileObject b) {
        if (ClassPathFiles.binaryName(a) != null || ClassPathFiles.binaryName(b) != null) {
            return a.equals(b);
        }
        return super.isSameFile(a, b);
    }

    @Override
    public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                                               FileObject sibling) {
        return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + kind.extension), kind) {
            @Override
            public OutputStream openOutputStream() {
                return new ByteArrayOutputStream() {
                    @Override
                    public void close() throws IOException {
                        super.close();
                        output.put(className, toByteArray());
                    }
                };
            }
        };
    }
}
