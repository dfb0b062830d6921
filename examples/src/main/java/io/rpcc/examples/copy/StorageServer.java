package io.rpcc.examples.copy;

import io.rpcc.core.SubChain;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A storage server's service functions (paper 4.1): {@code read} and {@code write} of blocks of
 * real files under a directory, and the {@code write} of a primary that replicates to a backup.
 */
public final class StorageServer {
    private final Path root;

    /** A store over {@code root}. */
    public StorageServer(Path root) throws IOException {
        this.root = Files.createDirectories(root);
    }

    private Path file(String path) {
        Path p = root.resolve(path).normalize();
        if (!p.startsWith(root)) {
            throw new IllegalArgumentException("path outside the store: " + path);
        }
        return p;
    }

    /** Reads {@code block.length()} bytes at {@code block.offset()} (fewer at the end of the file). */
    public byte[] read(Object params) throws IOException {
        Block b = (Block) params;
        try (RandomAccessFile f = new RandomAccessFile(file(b.path()).toFile(), "r")) {
            long left = Math.max(0, f.length() - b.offset());
            byte[] data = new byte[(int) Math.min(b.length(), left)];
            f.seek(b.offset());
            f.readFully(data);
            return data;
        }
    }

    /** Writes {@code block.data()} at {@code block.offset()}; returns the number of bytes written. */
    public int write(Object params) throws IOException {
        Block b = (Block) params;
        Path p = file(b.path());
        Files.createDirectories(p.getParent());
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(b.offset());
            f.write(b.data());
        }
        return b.data().length;
    }

    /**
     * The {@code write} of a primary with a backup (paper 4.1, Fig. 5): writes the block here, then
     * replicates it in a sub-chain to the {@code write} of server {@code backup}, whose result (the
     * backup's byte count) is this write's result. No thread waits for the backup. Composed (the
     * default), the backup's result goes on with whatever chain called this write, straight from the
     * backup; not composed, it comes back here first.
     */
    public SubChain writeAndReplicate(Object params, String backup) throws IOException {
        write(params);
        return SubChain.to(backup, "write").params(params);
    }

    /** The directory. */
    public Path root() {
        return root;
    }
}
