package io.rpcc.discovery;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsServerAddressStream;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.NoopAuthoritativeDnsServerCache;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import io.netty.resolver.dns.SequentialDnsServerAddressStreamProvider;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The DNS queries {@link DnsNameResolver} needs, sent with Netty's DNS client over an event loop
 * of its own: the records of one type at one name, with their TTLs. A name that does not exist
 * (NXDOMAIN) or has no record of that type (NODATA) has no records; a server that does not answer
 * within the timeout, or answers with an error (SERVFAIL, REFUSED...), is a failure, and the next
 * server is asked. Only answer-section records of the asked type count: a recursive server's
 * answer for an alias holds the CNAME chain and then the addresses, which are the alias's.
 */
final class DnsQueries implements AutoCloseable {
    /** An A or AAAA record. */
    record Address(InetAddress address, long ttl) {
    }

    /** An SRV record (RFC 2782). */
    record Service(int priority, int weight, int port, String target, long ttl) {
    }

    private final List<InetSocketAddress> servers;
    private final Duration timeout;
    private final EventLoopGroup loop;
    private final io.netty.resolver.dns.DnsNameResolver netty;

    DnsQueries(List<InetSocketAddress> servers, Duration timeout) {
        this.servers = List.copyOf(servers);
        this.timeout = timeout;
        this.loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rpcc-dns", true), NioIoHandler.newFactory());
        this.netty = new DnsNameResolverBuilder(loop.next())
                .datagramChannelType(NioDatagramChannel.class)
                .socketChannelType(NioSocketChannel.class) // a truncated answer is asked again over TCP
                .nameServerProvider(new SequentialDnsServerAddressStreamProvider(this.servers))
                .queryTimeoutMillis(timeout.toMillis())
                .recursionDesired(true)
                .resolveCache(NoopDnsCache.INSTANCE) // the resolver caches answers itself, by their TTLs
                .cnameCache(NoopDnsCnameCache.INSTANCE)
                .authoritativeDnsServerCache(NoopAuthoritativeDnsServerCache.INSTANCE)
                .build();
    }

    /** The system's DNS servers (resolv.conf's {@code nameserver} lines, in order). */
    static List<InetSocketAddress> systemServers() {
        DnsServerAddressStream stream = DnsServerAddressStreamProviders.platformDefault().nameServerAddressStream("");
        List<InetSocketAddress> servers = new ArrayList<>(stream.size());
        for (int i = 0, n = stream.size(); i < n; i++) {
            servers.add(stream.next());
        }
        return servers;
    }

    List<InetSocketAddress> servers() {
        return servers;
    }

    /** The A ({@code ipv6} false) or AAAA records at {@code fqdn}. */
    List<Address> addresses(String fqdn, boolean ipv6) throws IOException, InterruptedException {
        DnsRecordType type = ipv6 ? DnsRecordType.AAAA : DnsRecordType.A;
        return ask(fqdn, type, (content, ttl) -> {
            byte[] bytes = new byte[content.readableBytes()];
            content.getBytes(content.readerIndex(), bytes);
            try {
                return new Address(InetAddress.getByAddress(bytes), ttl);
            } catch (UnknownHostException e) { // not 4 or 16 bytes
                throw new IllegalArgumentException("an address of " + bytes.length + " bytes", e);
            }
        });
    }

    /** The SRV records at {@code fqdn}, in the order the server gave them. */
    List<Service> services(String fqdn) throws IOException, InterruptedException {
        return ask(fqdn, DnsRecordType.SRV, (content, ttl) -> {
            int at = content.readerIndex();
            // the content is a view of the whole message, so a compressed target (pointers) decodes too
            String target = DefaultDnsRecordDecoder.decodeName(content.duplicate().readerIndex(at + 6));
            return new Service(content.getUnsignedShort(at), content.getUnsignedShort(at + 2),
                    content.getUnsignedShort(at + 4), target, ttl);
        });
    }

    private <T> List<T> ask(String fqdn, DnsRecordType type, BiFunction<ByteBuf, Long, T> parse)
            throws IOException, InterruptedException {
        List<String> failures = new ArrayList<>(servers.size());
        for (InetSocketAddress server : servers) {
            Future<AddressedEnvelope<DnsResponse, InetSocketAddress>> answer =
                    netty.query(server, new DefaultDnsQuestion(fqdn, type));
            AddressedEnvelope<DnsResponse, InetSocketAddress> envelope;
            try {
                // Netty fails the query after the timeout; the margin only bounds a stuck event loop
                envelope = answer.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                failures.add(server + ": " + e.getCause());
                continue;
            } catch (TimeoutException e) {
                abandon(answer);
                failures.add(server + ": no answer within " + timeout);
                continue;
            } catch (InterruptedException e) {
                abandon(answer);
                throw e;
            }
            try {
                DnsResponse response = envelope.content();
                DnsResponseCode code = response.code();
                if (code.equals(DnsResponseCode.NXDOMAIN)) {
                    return List.of();
                }
                if (!code.equals(DnsResponseCode.NOERROR)) {
                    failures.add(server + ": " + code);
                    continue;
                }
                List<T> records = new ArrayList<>();
                for (int i = 0, n = response.count(DnsSection.ANSWER); i < n; i++) {
                    DnsRecord r = response.recordAt(DnsSection.ANSWER, i);
                    if (r.type().equals(type) && r instanceof DnsRawRecord raw) {
                        try {
                            records.add(parse.apply(raw.content(), r.timeToLive()));
                        } catch (RuntimeException malformed) {
                            throw new IOException("a malformed " + type + " record for " + fqdn + " from " + server, malformed);
                        }
                    }
                }
                return records;
            } finally {
                envelope.release();
            }
        }
        throw new IOException("no DNS server answered " + type + " " + fqdn + ": " + String.join("; ", failures));
    }

    /** Gives up on a query: its answer, should it still come, is released. */
    private static void abandon(Future<AddressedEnvelope<DnsResponse, InetSocketAddress>> answer) {
        answer.cancel(false);
        answer.addListener(f -> {
            if (f.isSuccess()) {
                answer.getNow().release();
            }
        });
    }

    @Override
    public void close() {
        netty.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
