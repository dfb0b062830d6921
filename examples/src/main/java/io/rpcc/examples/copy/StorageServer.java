package io.rpcc.examples.copy;

import io.rpcc.core.StreamedResult;
import io.rpcc.core.SubChain;
import java.io.InputStream;
import java.io.OutputStream;
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

    /** Writes {@code block.data()} as {@link #write} does and returns the bytes, for the next hop to write too. */
    public byte[] writeAndPass(Object params) throws IOException {
        write(params);
        return ((Block) params).data();
    }

    /** Reads the whole file {@code block.path()} as one value (a chain that carries it whole: no stream). */
    public byte[] readWhole(Object params) throws IOException {
        return Files.readAllBytes(file(((Block) params).path()));
    }

    /**
     * Streams the file {@code block.path()} to the next hop ({@link StreamedResult}): the chaining
     * function gets its length, the next hop's streaming function its bytes as they are read.
     */
    public StreamedResult readStream(Object params) throws IOException {
        Path p = file(((Block) params).path());
        return StreamedResult.of((int) Files.size(p), Files.newInputStream(p));
    }

    /** Writes the hop's data stream to {@code block.path()} as it arrives; returns the bytes written. */
    public int writeStream(Object params, InputStream data) throws IOException {
        Path p = file(((Block) params).path());
        Files.createDirectories(p.getParent());
        try (OutputStream out = Files.newOutputStream(p)) {
            return (int) data.transferTo(out);
        }
    }

    /**
     * Writes the hop's data stream to {@code block.path()} as it arrives and streams the same bytes
     * on to the next hop while it does (a replica's write): the chaining function gets the path.
     */
    public StreamedResult writeStreamAndForward(Object params, InputStream data) throws IOException {
        Path p = file(((Block) params).path());
        Files.createDirectories(p.getParent());
        OutputStream out = Files.newOutputStream(p);
        InputStream tee = new java.io.FilterInputStream(data) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    out.write(b, off, n);
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                try (out) {
                    super.close();
                }
            }
        };
        return StreamedResult.of(((Block) params).path(), tee);
    }

    /** The directory. */
    public Path root() {
        return root;
    }
}
