package io.rpcc.core.spi;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.module.ResolvedModule;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The class files a class loader can see, listed by package, for the compiler of chaining
 * functions: what javac's class path is for a function is exactly what the node's function class
 * loader loads from, wherever that is.
 *
 * <p>The roots (jars, directories, modules) are found from the loader and its parents up to, not
 * including, the platform loader: the URLs of a {@link URLClassLoader} (a standalone node's service
 * jars; Spring Boot's launcher, whose URLs are {@code jar:nested:} URLs into the Boot jar, such as
 * {@code BOOT-INF/classes/} and each {@code BOOT-INF/lib/*.jar}), the class path and the module path
 * of the application class loader, and, for any other kind of loader, the jars and directories its
 * {@code getResources} reveals. Each root is indexed once, on first use; the class files themselves
 * are always read through the loader ({@link ClassLoader#getResourceAsStream}), so javac compiles
 * against the same bytes the function will run with, even where two roots hold one class.
 */
public final class LoaderClassPath {
    private static final String CLASS = ".class";

    private final ClassLoader loader;
    private final Set<ModuleLayer> layers = new LinkedHashSet<>();
    private volatile @Nullable Index index;

    /** The class path of {@code loader}, with the named modules of the boot layer. */
    public LoaderClassPath(ClassLoader loader) {
        this(loader, List.of());
    }

    /**
     * The class path of {@code loader}, including the named modules it defines in the boot layer and
     * in the layers of {@code known} classes (an application's registered types, which may live in a
     * layer of its own).
     */
    public LoaderClassPath(ClassLoader loader, Iterable<Class<?>> known) {
        this.loader = loader;
        layers.add(ModuleLayer.boot());
        for (Class<?> c : known) {
            ModuleLayer layer = c.getModule().getLayer();
            if (layer != null) {
                layers.add(layer);
            }
        }
    }

    /**
     * The binary names of the classes that {@code loader} sees in {@code packageName} and its
     * sub-packages, for scanning (through the loader's class-path index, built once per loader).
     */
    public static List<String> classNamesUnder(ClassLoader loader, String packageName) {
        LoaderClassPath path = new LoaderClassPath(loader);
        String prefix = packageName + ".";
        List<String> out = new ArrayList<>();
        for (String pkg : path.packages()) {
            if (packageName.isEmpty() || pkg.equals(packageName) || pkg.startsWith(prefix)) {
                for (String resource : path.classes(pkg)) {
                    out.add(resource.substring(0, resource.length() - CLASS.length()).replace('/', '.'));
                }
            }
        }
        out.sort(null);
        return out;
    }

    /** The resource names ({@code com/acme/Order.class}) of the classes in {@code packageName}, not in sub-packages. */
    public List<String> classes(String packageName) {
        return index().byPackage.getOrDefault(packageName, List.of());
    }

    /** Every package with at least one class, e.g. for scanning. */
    public Set<String> packages() {
        return index().byPackage.keySet();
    }

    /** Opens a class file through the loader, or from its root if the loader does not show it as a resource. */
    public InputStream open(String resource) throws IOException {
        InputStream in = loader.getResourceAsStream(resource);
        if (in != null) {
            return in;
        }
        Root root = index().rootOf.get(resource);
        if (root == null) {
            throw new IOException("class file " + resource + " is no longer visible to " + describeLoader(loader));
        }
        return root.open(resource);
    }

    /** One line naming the loader and its roots, for error messages: {@code 'rpcc-services' (3 jars and directories: a.jar, ...)}. */
    public String describe() {
        Index i = index();
        StringBuilder out = new StringBuilder(describeLoader(loader)).append(" (").append(i.roots.size())
                .append(i.roots.size() == 1 ? " jar or directory" : " jars and directories");
        int shown = 0;
        for (String r : i.roots) {
            out.append(shown == 0 ? ": " : ", ");
            if (++shown > 4) {
                out.append("...");
                break;
            }
            out.append(r);
        }
        return out.append(')').toString();
    }

    private static String describeLoader(ClassLoader loader) {
        return loader.getName() != null ? "class loader '" + loader.getName() + "'" : loader.getClass().getName();
    }

    /**
     * The index of the loader's class path, built on first use. Indexes of loaders that only the
     * boot layer's modules extend are shared by every node of the JVM (a loader's class path does
     * not change; a JVM's nodes usually share one loader), held only as long as the loader lives.
     */
    private Index index() {
        Index i = index;
        if (i == null) {
            synchronized (this) {
                i = index;
                if (i == null) {
                    boolean shareable = layers.size() == 1;
                    i = shareable ? SHARED.get(loader) : null;
                    if (i == null) {
                        i = new Index();
                        for (Root root : roots()) {
                            i.add(root);
                        }
                        if (shareable) {
                            SHARED.put(loader, i);
                        }
                    }
                    index = i;
                }
            }
        }
        return i;
    }

    private static final Map<ClassLoader, Index> SHARED = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /** The roots of {@link #loader} and its parents, in the loader's delegation order (parents first). */
    private List<Root> roots() {
        List<ClassLoader> chain = new ArrayList<>();
        ClassLoader platform = ClassLoader.getPlatformClassLoader();
        for (ClassLoader l = loader; l != null && l != platform; l = l.getParent()) {
            chain.add(0, l);
        }
        Map<String, Root> roots = new LinkedHashMap<>();
        for (ClassLoader l : chain) {
            if (l == ClassLoader.getSystemClassLoader()) {
                for (String entry : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
                    if (!entry.isBlank()) {
                        addPath(roots, Path.of(entry).toAbsolutePath());
                    }
                }
            } else if (l instanceof URLClassLoader u) {
                for (URL url : u.getURLs()) {
                    addUrl(roots, url);
                }
            } else {
                discover(roots, l);
            }
            for (ModuleLayer layer : layers) {
                addModules(roots, l, layer);
            }
        }
        return new ArrayList<>(roots.values());
    }

    /** The jars and directories of a loader of unknown kind: those holding a manifest, a class-path root, or a package directory. */
    private static void discover(Map<String, Root> roots, ClassLoader l) {
        try {
            for (String probe : List.of("META-INF/MANIFEST.MF", "")) {
                Enumeration<URL> found = l.getResources(probe);
                while (found.hasMoreElements()) {
                    String url = found.nextElement().toString();
                    addUrl(roots, toUrl(url.substring(0, url.length() - probe.length())));
                }
            }
        } catch (IOException | RuntimeException e) {
            // what was found so far is the class path; javac reports what is missing
        }
    }

    /** The named modules of {@code layer} defined by {@code l} (an application run on the module path, or a plug-in layer). */
    private static void addModules(Map<String, Root> roots, ClassLoader l, ModuleLayer layer) {
        for (Module m : layer.modules()) {
            if (m.getClassLoader() != l) {
                continue;
            }
            layer.configuration().findModule(m.getName()).map(ResolvedModule::reference)
                    .filter(ref -> ref.location().map(uri -> !"jrt".equals(uri.getScheme())).orElse(false))
                    .ifPresent(ref -> roots.putIfAbsent("module " + m.getName(), new ModuleRoot(ref)));
        }
    }

    private static void addUrl(Map<String, Root> roots, @Nullable URL url) {
        if (url == null) {
            return;
        }
        try {
            if ("file".equals(url.getProtocol())) {
                addPath(roots, Path.of(url.toURI()));
            } else {
                String spec = url.toString();
                // a jar: URL names a jar or a directory inside one (jar:nested:/app.jar/!BOOT-INF/classes/!/)
                URL jar = spec.startsWith("jar:") ? (spec.endsWith("!/") ? url : toUrl(spec + "!/")) : toUrl("jar:" + spec + "!/");
                if (jar != null) {
                    roots.putIfAbsent(spec, new JarUrlRoot(jar, spec));
                }
            }
        } catch (Exception e) {
            // not a root we can read (javac reports the classes it then misses)
        }
    }

    private static void addPath(Map<String, Root> roots, Path path) {
        if (Files.isDirectory(path)) {
            roots.putIfAbsent(path.toString(), new DirectoryRoot(path));
        } else if (Files.isRegularFile(path) && roots.putIfAbsent(path.toString(), new JarFileRoot(path)) == null) {
            addManifestClassPath(roots, path);
        }
    }

    /**
     * The jars and directories a jar's manifest names in {@code Class-Path}, relative to the jar's
     * directory, as the application class loader and {@link URLClassLoader} load them: the standalone
     * node's {@code rpcc-node.jar} has rpcc itself in {@code lib/} that way ({@code java -jar}).
     */
    private static void addManifestClassPath(Map<String, Root> roots, Path jar) {
        String classPath;
        try (JarFile file = new JarFile(jar.toFile())) {
            java.util.jar.Manifest manifest = file.getManifest();
            classPath = manifest == null ? null : manifest.getMainAttributes().getValue(java.util.jar.Attributes.Name.CLASS_PATH);
        } catch (IOException | RuntimeException e) {
            return;
        }
        if (classPath == null) {
            return;
        }
        for (String entry : classPath.trim().split("\\s+")) {
            if (entry.isEmpty()) {
                continue;
            }
            try {
                URI uri = jar.toUri().resolve(entry);
                if ("file".equals(uri.getScheme())) {
                    addPath(roots, Path.of(uri));
                }
            } catch (RuntimeException e) {
                // an entry that is no file URL (the loaders skip it too)
            }
        }
    }

    private static @Nullable URL toUrl(String spec) {
        try {
            return URI.create(spec).toURL();
        } catch (Exception e) {
            try {
                @SuppressWarnings("deprecation")
                URL url = new URL(spec); // a scheme whose handler only the URL constructor finds (Spring Boot's nested:)
                return url;
            } catch (Exception e2) {
                return null;
            }
        }
    }

    /** Package → class resources, and resource → root. */
    private static final class Index {
        final Map<String, List<String>> byPackage = new HashMap<>();
        final Map<String, Root> rootOf = new ConcurrentHashMap<>();
        final Set<String> roots = new LinkedHashSet<>();

        void add(Root root) {
            roots.add(root.toString());
            try {
                root.list(resource -> {
                    if (!resource.endsWith(CLASS) || resource.endsWith("module-info.class")
                            || resource.startsWith("META-INF/") || rootOf.putIfAbsent(resource, root) != null) {
                        return;
                    }
                    int slash = resource.lastIndexOf('/');
                    String pkg = slash < 0 ? "" : resource.substring(0, slash).replace('/', '.');
                    byPackage.computeIfAbsent(pkg, p -> new ArrayList<>()).add(resource);
                });
            } catch (IOException | RuntimeException e) {
                // an unreadable root adds nothing
            }
        }
    }

    /** A jar, directory or module whose class files are listed once. */
    private interface Root {
        void list(java.util.function.Consumer<String> resources) throws IOException;

        InputStream open(String resource) throws IOException;
    }

    private record DirectoryRoot(Path dir) implements Root {
        @Override
        public void list(java.util.function.Consumer<String> resources) throws IOException {
            try (Stream<Path> files = Files.walk(dir)) {
                files.filter(Files::isRegularFile).forEach(f -> resources.accept(dir.relativize(f).toString()
                        .replace(File.separatorChar, '/')));
            }
        }

        @Override
        public InputStream open(String resource) throws IOException {
            return Files.newInputStream(dir.resolve(resource));
        }

        @Override
        public String toString() {
            return dir.toString();
        }
    }

    private record JarFileRoot(Path jar) implements Root {
        @Override
        public void list(java.util.function.Consumer<String> resources) throws IOException {
            try (JarFile file = new JarFile(jar.toFile())) {
                Enumeration<JarEntry> entries = file.entries();
                while (entries.hasMoreElements()) {
                    resources.accept(entries.nextElement().getName());
                }
            }
        }

        @Override
        public InputStream open(String resource) throws IOException {
            JarFile file = new JarFile(jar.toFile());
            JarEntry entry = file.getJarEntry(resource);
            if (entry == null) {
                file.close();
                throw new IOException(resource + " is not in " + jar);
            }
            InputStream in = file.getInputStream(entry);
            return new java.io.FilterInputStream(in) {
                @Override
                public void close() throws IOException {
                    super.close();
                    file.close();
                }
            };
        }

        @Override
        public String toString() {
            return jar.getFileName().toString();
        }
    }

    /** A jar reached through a {@code jar:} URL, such as a Spring Boot nested jar or directory. */
    private record JarUrlRoot(URL url, String name) implements Root {
        @Override
        public void list(java.util.function.Consumer<String> resources) throws IOException {
            URLConnection c = url.openConnection();
            if (!(c instanceof JarURLConnection jar)) {
                return;
            }
            // the connection's jar is shared with the loader (cached by the URL handler): not closed here
            JarFile file = jar.getJarFile();
            String prefix = jar.getEntryName() == null ? "" : jar.getEntryName();
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (name.startsWith(prefix)) {
                    resources.accept(name.substring(prefix.length()));
                }
            }
        }

        @Override
        public InputStream open(String resource) throws IOException {
            URL entry = toUrl(url + resource);
            if (entry == null) {
                throw new IOException("cannot open " + resource + " in " + name);
            }
            return entry.openStream();
        }

        @Override
        public String toString() {
            // jar:nested:/app.jar/!BOOT-INF/lib/a.jar!/ -> a.jar; jar:nested:/app.jar/!BOOT-INF/classes/!/ -> BOOT-INF/classes
            String path = name.replaceAll("(!/|/)+$", "");
            int bang = path.lastIndexOf('!');
            String inner = bang < 0 ? path.substring(path.lastIndexOf('/') + 1) : path.substring(bang + 1);
            return inner.startsWith("BOOT-INF/") || inner.startsWith("WEB-INF/") ? inner
                    : inner.substring(inner.lastIndexOf('/') + 1);
        }
    }

    private record ModuleRoot(ModuleReference module) implements Root {
        @Override
        public void list(java.util.function.Consumer<String> resources) throws IOException {
            try (ModuleReader reader = module.open(); Stream<String> names = reader.list()) {
                names.forEach(resources);
            }
        }

        @Override
        public InputStream open(String resource) throws IOException {
            ModuleReader reader = module.open();
            InputStream in = reader.open(resource).orElse(null);
            if (in == null) {
                reader.close();
                throw new IOException(resource + " is not in module " + module.descriptor().name());
            }
            return new java.io.FilterInputStream(in) {
                @Override
                public void close() throws IOException {
                    super.close();
                    reader.close();
                }
            };
        }

        @Override
        public String toString() {
            return "module " + module.descriptor().name();
        }
    }
}
