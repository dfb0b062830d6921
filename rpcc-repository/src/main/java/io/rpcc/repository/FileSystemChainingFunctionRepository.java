package io.rpcc.repository;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * A {@link ChainingFunctionRepository} in a directory of the local filesystem: one file per
 * function, named by its content id ({@code java-<sha256>.src}), written atomically, checked
 * against its id when read. It survives restarts; several processes may share the directory.
 *
 * <pre>{@code
 * ChainingFunctionRepository store = new FileSystemChainingFunctionRepository(Path.of("/var/lib/rpcc/functions"));
 * RpccServer repo = RpccServer.builder("repo").repository(store).build().start();
 * }</pre>
 */
public final class FileSystemChainingFunctionRepository implements ChainingFunctionRepository {
    private final Path directory;

    /** A repository in {@code directory}, created if missing. */
    public FileSystemChainingFunctionRepository(Path directory) {
        this.directory = directory;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the repository directory " + directory, e);
        }
    }

    private Path file(String id) {
        int colon = id.indexOf(':');
        if (colon < 0 || !id.substring(colon + 1).matches("[0-9a-f]{64}") || !id.substring(0, colon).matches("[a-z]+")) {
            throw new IllegalArgumentException("not a chaining-function id: " + id);
        }
        return directory.resolve(id.substring(0, colon) + "-" + id.substring(colon + 1) + ".src");
    }

    @Override
    public String put(ChainingFunctionSource source) {
        if (source.language() == null || source.isReference()) {
            throw new IllegalArgumentException(source + " is not a source that can be stored");
        }
        Path target = file(source.id());
        if (Files.exists(target)) {
            return source.id();
        }
        try {
            Path tmp = Files.createTempFile(directory, ".upload-", ".tmp");
            Files.writeString(tmp, source.source(), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return source.id();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store " + source.id() + " in " + directory, e);
        }
    }

    @Override
    public Optional<ChainingFunctionSource> get(String id) {
        Path f = file(id);
        String text;
        try {
            text = Files.readString(f, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + f, e);
        }
        FunctionLanguage language = FunctionLanguage.valueOf(id.substring(0, id.indexOf(':')).toUpperCase(Locale.ROOT));
        ChainingFunctionSource source = ChainingFunctionSource.of(language, text);
        if (!source.id().equals(id)) {
            throw new IllegalStateException("repository file " + f + " is corrupt: its content has id " + source.id());
        }
        return Optional.of(source);
    }

    /** The directory. */
    public Path directory() {
        return directory;
    }
}
