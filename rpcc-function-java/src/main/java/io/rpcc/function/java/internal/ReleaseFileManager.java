package io.rpcc.function.java.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.ForwardingJavaFileObject;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;

/**
 * javac's file manager for chaining functions, kept between compilations (by {@link JavaResources},
 * one compilation at a time): it serves the JDK's classes as Java {@value #RELEASE}'s platform API,
 * the API {@code --release 21} gives and no other, and holds javac's warm caches.
 *
 * <p>With {@link PlatformClasses} (the usual case) it serves the system modules itself, from the
 * {@code ct.sym} those hold open, set up as javac's own {@code --release} does it
 * ({@code JDKPlatformProvider}): no system image ({@code --system none}), each of the release's
 * modules at its directories in {@code ct.sym}, the {@code .sig} files there served as class files;
 * compilations then take {@code -source 21 -target 21}. Without (a JDK without a {@code ct.sym} for
 * the release) compilations take {@code --release 21} and javac reads {@code ct.sym} itself, each
 * time. Either way only public {@code javax.tools} API is used.
 */
final class ReleaseFileManager extends ForwardingJavaFileManager<StandardJavaFileManager> {
    /** The Java release whose platform API functions compile against. */
    static final int RELEASE = 21;
    /**
     * Options for every compilation: no annotation processing; full debug information (stack traces
     * name file and line, and a debugger stepping through a function in interactive mode shows its
     * local variables; {@code -g:source,lines} would save little); no other class compiled.
     */
    private static final List<String> COMMON_OPTIONS = List.of("-proc:none", "-g", "-implicit:none");
    private static final String SIGNATURE = ".sig";

    private final PlatformClasses platform;
    /** The system modules' locations (identity: javac's module locations do not define equality). */
    private final Set<Location> platformLocations;
    private final List<String> options;
    /**
     * What the platform locations list and hold, kept for the next compilations: they never change,
     * and javac asks again in every compilation (each module's {@code module-info}, every package
     * it resolves names in).
     */
    private final Map<Listing, List<JavaFileObject>> listed = new ConcurrentHashMap<>();
    private final Map<Listing, Optional<JavaFileObject>> found = new ConcurrentHashMap<>();

    private ReleaseFileManager(StandardJavaFileManager standard, PlatformClasses platform, Set<Location> platformLocations) {
        super(standard);
        this.platform = platform;
        this.platformLocations = platformLocations;
        List<String> release = platform == null
                ? List.of("--release", Integer.toString(RELEASE))
                : List.of("-source", Integer.toString(RELEASE), "-target", Integer.toString(RELEASE));
        List<String> all = new ArrayList<>(release);
        all.addAll(COMMON_OPTIONS);
        this.options = List.copyOf(all);
    }

    /**
     * A new file manager serving {@code platform}, which the caller holds once for it (it is given up
     * when this closes); with {@code null}, one for javac's {@code --release}.
     */
    static ReleaseFileManager create(JavaCompiler javac, PlatformClasses platform) {
        StandardJavaFileManager standard = javac.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        if (platform == null) {
            return new ReleaseFileManager(standard, null, Set.of());
        }
        try {
            standard.handleOption("--system", List.of("none").iterator());
            for (Map.Entry<String, List<Path>> module : platform.modules().entrySet()) {
                standard.setLocationForModule(StandardLocation.SYSTEM_MODULES, module.getKey(), module.getValue());
            }
            Set<Location> locations = Collections.newSetFromMap(new IdentityHashMap<>());
            locations.add(StandardLocation.SYSTEM_MODULES);
            for (Set<Location> modules : standard.listLocationsForModules(StandardLocation.SYSTEM_MODULES)) {
                locations.addAll(modules);
            }
            return new ReleaseFileManager(standard, platform, locations);
        } catch (IOException | RuntimeException e) {
            // cannot serve it: javac's --release will (slower, the same API)
            platform.release();
            return new ReleaseFileManager(standard, null, Set.of());
        }
    }

    /** The options of a compilation with this file manager: the release's and {@link #COMMON_OPTIONS}. */
    List<String> options() {
        return options;
    }

    /** The platform classes this serves, or {@code null} if javac's {@code --release} serves them. */
    PlatformClasses platform() {
        return platform;
    }

    @Override
    public Iterable<JavaFileObject> list(Location location, String packageName, Set<JavaFileObject.Kind> kinds,
                                         boolean recurse) throws IOException {
        if (!platformLocations.contains(location) || !kinds.contains(JavaFileObject.Kind.CLASS)) {
            return super.list(location, packageName, kinds, recurse);
        }
        Listing key = new Listing(location, packageName, Set.copyOf(kinds), recurse);
        List<JavaFileObject> known = listed.get(key);
        if (known != null) {
            return known;
        }
        Set<JavaFileObject.Kind> withSignatures = EnumSet.copyOf(kinds);
        withSignatures.add(JavaFileObject.Kind.OTHER);
        List<JavaFileObject> out = new ArrayList<>();
        for (JavaFileObject file : super.list(location, packageName, withSignatures, recurse)) {
            if (file.getKind() == JavaFileObject.Kind.OTHER && file.getName().endsWith(SIGNATURE)) {
                out.add(new SignatureFile(file));
            } else if (kinds.contains(file.getKind())) {
                out.add(file);
            }
        }
        List<JavaFileObject> files = List.copyOf(out);
        listed.put(key, files);
        return files;
    }

    @Override
    public JavaFileObject getJavaFileForInput(Location location, String className, JavaFileObject.Kind kind)
            throws IOException {
        if (!platformLocations.contains(location)) {
            return super.getJavaFileForInput(location, className, kind);
        }
        Listing key = new Listing(location, className, Set.of(kind), false);
        Optional<JavaFileObject> known = found.get(key);
        if (known == null) {
            JavaFileObject signature = kind != JavaFileObject.Kind.CLASS ? null
                    : (JavaFileObject) super.getFileForInput(location, "", className.replace('.', '/') + SIGNATURE);
            known = Optional.ofNullable(signature == null ? super.getJavaFileForInput(location, className, kind)
                    : new SignatureFile(signature));
            found.put(key, known);
        }
        return known.orElse(null);
    }

    @Override
    public String inferBinaryName(Location location, JavaFileObject file) {
        // asked for every file of every listing, in every compilation: a signature file remembers it
        return file instanceof SignatureFile s ? s.binaryName(location) : super.inferBinaryName(location, file);
    }

    /** Closes javac's file manager and gives up its hold on the platform classes. */
    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (platform != null) {
                platform.release();
            }
        }
    }

    /** A question to a platform location: what is in a package, or where a class is. */
    private record Listing(Location location, String name, Set<JavaFileObject.Kind> kinds, boolean recurse) {
    }

    /**
     * A {@code .sig} file of {@code ct.sym}: a class file (javac reads it as one) under another
     * extension. Kept with the listings, it remembers its binary name, and its contents are read
     * from the zip once ({@link PlatformClasses#contents}).
     */
    private final class SignatureFile extends ForwardingJavaFileObject<JavaFileObject> {
        private volatile String uri;
        private volatile String binaryName;

        SignatureFile(JavaFileObject signature) {
            super(signature);
        }

        @Override
        public Kind getKind() {
            return Kind.CLASS;
        }

        @Override
        public boolean isNameCompatible(String simpleName, Kind kind) {
            return super.isNameCompatible(simpleName + SIGNATURE, Kind.OTHER);
        }

        @Override
        public InputStream openInputStream() throws IOException {
            String key = uri;
            if (key == null) {
                key = fileObject.toUri().toString();
                uri = key;
            }
            return new ByteArrayInputStream(platform.contents(key, fileObject));
        }

        String binaryName(Location location) {
            String name = binaryName;
            if (name == null) {
                name = ReleaseFileManager.super.inferBinaryName(location, fileObject);
                binaryName = name;
            }
            return name;
        }
    }
}
