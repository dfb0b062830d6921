package io.rpcc.node.internal;

import io.rpcc.core.ChainingFunctionSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The chaining functions a standalone node knows at start ({@code rpcc.functions.precompile.directory}):
 * every {@code *.java} file of the directory is a Java chaining function, every {@code *.js} file a
 * JavaScript one (other files are ignored; subdirectories are not read), in the order of their names.
 * The node compiles them in the background after it started ({@code NodeBuilder.precompileFunctions}).
 */
final class KnownFunctionFiles {
    /** A file over this size is not read: the node could not compile it anyway (its source limit is smaller). */
    static final long MAX_FILE_BYTES = 1024 * 1024;

    private KnownFunctionFiles() {
    }

    /**
     * The functions of {@code directory}.
     *
     * @throws ConfigException if it is not a readable directory, or one of its function files cannot be read
     */
    static List<ChainingFunctionSource> read(ConfigValues values, Path directory) {
        if (!Files.isDirectory(directory)) {
            throw values.invalid(ConfigKey.FUNCTIONS_PRECOMPILE_DIRECTORY, "a directory of chaining-function sources"
                    + " (*.java, *.js) (" + directory.toAbsolutePath() + " is not a directory)");
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(directory)) {
            files = list.filter(f -> Files.isRegularFile(f) && (name(f).endsWith(".java") || name(f).endsWith(".js")))
                    .sorted().toList();
        } catch (IOException e) {
            throw values.invalid(ConfigKey.FUNCTIONS_PRECOMPILE_DIRECTORY, "a readable directory (" + e + ")");
        }
        List<ChainingFunctionSource> functions = new ArrayList<>();
        for (Path f : files) {
            try {
                if (Files.size(f) > MAX_FILE_BYTES) {
                    throw values.invalid(ConfigKey.FUNCTIONS_PRECOMPILE_DIRECTORY, "chaining-function sources of at"
                            + " most " + MAX_FILE_BYTES + " bytes (" + f.toAbsolutePath() + " is larger)");
                }
                String text = Files.readString(f, StandardCharsets.UTF_8);
                functions.add(name(f).endsWith(".js") ? ChainingFunctionSource.javascript(text)
                        : ChainingFunctionSource.java(text));
            } catch (IOException e) {
                throw values.invalid(ConfigKey.FUNCTIONS_PRECOMPILE_DIRECTORY, "readable chaining-function sources ("
                        + f.toAbsolutePath() + ": " + e + ")");
            }
        }
        return functions;
    }

    private static String name(Path f) {
        return f.getFileName().toString();
    }
}
