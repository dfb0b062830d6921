package io.rpcc.core;

/**
 * Which of Netty's socket transports a node's connections and event loops use: the JDK's NIO, or
 * Linux's native epoll (fewer system calls and no selector wake-up pipe: a hand-off from a worker
 * thread to an event loop costs an {@code eventfd} write, not a pipe write). Set with
 * {@code NodeBuilder.transport}, the standalone node's {@code rpcc.transport} and the Spring
 * properties {@code rpcc.server.transport} and {@code rpcc.client.transport}; a node tells which one it runs ({@code RpccServer.transport()},
 * {@code RpccClient.transport()}). Both kinds speak the same bytes on the wire: nodes of either kind
 * talk to each other.
 */
public enum SocketTransport {
    /**
     * Epoll where it is available (Linux on x86-64 with glibc, whose native library
     * rpcc ships, and loads), NIO elsewhere or when the native library does not load (another
     * operating system or processor, a musl libc, a temporary directory the library cannot be
     * unpacked to). Never fails a node's start; why epoll was not taken is logged once per JVM.
     */
    AUTO,
    /**
     * Linux's native epoll transport; a node so configured fails to start, saying why, where epoll
     * is not available.
     */
    EPOLL,
    /**
     * The JDK's NIO transport, available everywhere: the default (epoll was not measurably faster for
     * rpcc's calls and chains on loopback; see docs/benchmarks.md).
     */
    NIO
}
