package io.rpcc.function.java.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.tools.JavaFileObject;

/**
 * The platform API of one Java release (21 for chaining functions) as javac's {@code --release}
 * reads it: the signature files of that release's sections of the JDK's {@code lib/ct.sym}, module
 * by module. javac's {@code --release} opens {@code ct.sym} (a zip of some 20,000 entries) afresh
 * for every compilation, which is about a third of a warm compile; this opens it once and serves
 * every compilation from it ({@link ReleaseFileManager} sets the modules up in a file manager
 * exactly as javac's own {@code JDKPlatformProvider} does).
 *
 * <p>Thread-safe: read only once open (the zip file system serves concurrent reads). But a thread
 * interrupted while it reads closes the zip's file channel for every reader (an interruptible
 * channel): then {@link #readable()} turns false and {@link JavaResources} opens it afresh. Closed when the
 * last of its holders lets go: {@link JavaResources} while some node holds it, and each file
 * manager made from it, so a compilation still running when the last node closes finishes first.
 */
final class PlatformClasses {
    /** A module's descriptor in {@code ct.sym}. */
    private static final String MODULE_DESCRIPTOR = "module-info.sig";
    private final FileSystem ctSym;
    private final Map<String, List<Path>> modules;
    /** A small entry that {@link #readable()} reads: {@code java.base}'s module descriptor. */
    private final Path probe;
    private int holds = 1; // guarded by this; the opener's
    /**
     * The signature files read so far, by URI: they never change while {@code ct.sym} is open, and
     * every compilation reads again those it uses (javac's symbol table is new in each one), each
     * an inflation from the zip. At most {@link #MAX_CACHED_BYTES} are kept; beyond, reads go to the zip.
     */
    private final Map<String, byte[]> contents = new ConcurrentHashMap<>();
    private final AtomicLong cachedBytes = new AtomicLong();
    /**
     * Bytes of signature files kept at most: a warm node reads a few hundred files, a few MB; functions
     * that reach into many more of the platform's classes (a hostile peer's, say) cost the JVM no more.
     */
    static final long MAX_CACHED_BYTES = 8L << 20;

    private PlatformClasses(FileSystem ctSym, Map<String, List<Path>> modules, Path probe) {
        this.ctSym = ctSym;
        this.modules = modules;
        this.probe = probe;
    }

    /**
     * Release {@code release}'s platform classes from the running JDK's {@code ct.sym}, held once by
     * the caller; or {@code null} if this JDK has no {@code ct.sym} or none for that release (then
     * javac's own {@code --release} must serve it).
     */
    static PlatformClasses open(int release) {
        Path file = Path.of(System.getProperty("java.home"), "lib", "ct.sym");
        if (!Files.isRegularFile(file)) {
            return null;
        }
        // javac names a release's sections by the release in base 36 (21: "L"): a section serves each release named in it
        String version = Integer.toString(release, Character.MAX_RADIX).toUpperCase(Locale.ROOT);
        FileSystem fs = null;
        try {
            fs = FileSystems.newFileSystem(file, (ClassLoader) null);
            Map<String, List<Path>> modules = new HashMap<>();
            Path root = fs.getRootDirectories().iterator().next();
            try (DirectoryStream<Path> sections = Files.newDirectoryStream(root)) {
                for (Path section : sections) {
                    String name = section.getFileName().toString();
                    if (!name.contains(version) || name.contains("-")) {
                        continue;
                    }
                    try (DirectoryStream<Path> inSection = Files.newDirectoryStream(section)) {
                        for (Path module : inSection) {
                            String moduleName = module.getFileName().toString();
                            modules.computeIfAbsent(moduleName, m -> new ArrayList<>()).add(module);
                        }
                    }
                }
            }
            Path probe = modules.getOrDefault("java.base", List.of()).stream().map(d -> d.resolve(MODULE_DESCRIPTOR))
                    .filter(Files::isRegularFile).findFirst().orElse(null);
            if (probe == null) {
                fs.close();
                return null;
            }
            modules.replaceAll((m, paths) -> List.copyOf(paths));
            return new PlatformClasses(fs, Map.copyOf(modules), probe);
        } catch (IOException | RuntimeException e) {
            if (fs != null) {
                try {
                    fs.close();
                } catch (IOException ignored) {
                    // nothing more to free
                }
            }
            return null; // javac's --release reads it its own way
        }
    }

    /** The release's modules, each with its directories in {@code ct.sym}. */
    Map<String, List<Path>> modules() {
        return modules;
    }

    /**
     * Whether it can still be read: {@code false} once a thread interrupted during a read has closed
     * the zip's channel (every read fails from then on). One small read, a few microseconds.
     */
    boolean readable() {
        try (InputStream in = Files.newInputStream(probe)) {
            return in.read() >= 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The contents of {@code file}, one of this {@code ct.sym}'s signature files known by {@code uri}:
     * read from the zip the first time, from memory after (unless {@link #MAX_CACHED_BYTES} are kept).
     */
    byte[] contents(String uri, JavaFileObject file) throws IOException {
        byte[] known = contents.get(uri);
        if (known != null) {
            return known;
        }
        byte[] read;
        try (InputStream in = file.openInputStream()) {
            read = in.readAllBytes();
        }
        if (cachedBytes.addAndGet(read.length) <= MAX_CACHED_BYTES) {
            byte[] raced = contents.putIfAbsent(uri, read);
            if (raced != null) {
                cachedBytes.addAndGet(-read.length);
                return raced;
            }
        } else {
            cachedBytes.addAndGet(-read.length);
        }
        return read;
    }

    /** Takes a hold; {@code false} if it is closed already (the caller must then not use it). */
    synchronized boolean retain() {
        if (holds == 0) {
            return false;
        }
        holds++;
        return true;
    }

    /** Gives up a hold; the last one closes {@code ct.sym}. */
    void release() {
        synchronized (this) {
            if (holds == 0 || --holds > 0) {
                return;
            }
        }
        try {
            ctSym.close();
        } catch (IOException e) {
            // nothing more to free
        }
    }
}
