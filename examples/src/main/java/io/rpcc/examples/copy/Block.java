package io.rpcc.examples.copy;

/**
 * A block of a file: where it is and, for writes, its bytes.
 *
 * @param path the file, relative to the storage server's directory
 * @param offset the block's offset in the file
 * @param length the number of bytes to read (ignored for writes)
 * @param data the bytes to write, or {@code null} for a read
 */
public record Block(String path, long offset, int length, byte[] data) {
}
