package io.rpcc.server.atomic;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One XA branch of a store with a real two-phase commit (a database reached through an
 * {@code XADataSource}, a message broker's {@code XAResource}) taking part in an atomic chain's
 * transaction. {@link #start(XAConnection, Transaction)} begins the branch and enlists it; the service
 * function then does its work on that connection; the node's vote ends the branch and prepares it in
 * the store ({@code XAResource.prepare}), and the transaction's outcome commits or rolls it back
 * there, then closes the connection (also when the hop's run fails, or has to wait for a lock, and
 * its branch is rolled back at once).
 *
 * <pre>{@code
 * XAConnection xa = xaDataSource.getXAConnection();
 * XaResourceManager.start(xa, Transaction.current());   // the branch begins, is enlisted, and owns xa
 * Connection c = xa.getConnection();                     // closed with xa when the branch ends
 * try (var s = c.prepareStatement("UPDATE stock SET n = n - ? WHERE item = ?")) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Leave the connection handle open: some drivers (H2, for one) roll the branch's work back when
 * the handle closes before the branch ends.
 *
 * <p>Unlike {@link JdbcResourceManager}, the vote is the store's own: once {@link #prepare()} returned,
 * the store has promised to commit the branch, so a commit decided afterwards does not fail for a
 * constraint or a serialization conflict. A branch the store reports read-only
 * ({@code XA_RDONLY}) is finished at the vote and needs neither commit nor rollback.
 *
 * <p><strong>One instance per hop.</strong> An XA branch cannot take more work once prepared, so a later
 * hop of the same transaction at the same node starts a branch of its own (another call of
 * {@code start}: both branches share the transaction's global id and differ
 * in their branch qualifier).
 *
 * <p><strong>Prepared branches outlive a crash.</strong> If the node dies after its vote and before the
 * decision, the store keeps the branch prepared (its locks held) until someone resolves it: rpcc keeps
 * no log to do so on restart. The global transaction id names the transaction ({@link #globalId(String)}:
 * {@code rpcc:} and {@link Transaction#id()}, or a digest of it when longer than 64 bytes), so an
 * operator can find the originator's log line for its outcome, list the store's prepared branches
 * ({@code XAResource.recover}; for example PostgreSQL's {@code pg_prepared_xacts}) and commit or roll
 * back each one.
 */
public final class XaResourceManager implements ResourceManager {
    /** The XA format id of rpcc's branches ("RPCC" in ASCII). */
    public static final int FORMAT_ID = 0x5250_4343;
    private static final Logger log = LoggerFactory.getLogger(XaResourceManager.class);

    private enum State { ACTIVE, PREPARED, FINISHED }

    private final XAResource resource;
    private final Xid xid;
    private final String transactionId;
    private final @Nullable AutoCloseable owner;
    private State state = State.ACTIVE;

    private XaResourceManager(XAResource resource, Xid xid, String transactionId, @Nullable AutoCloseable owner) {
        this.resource = resource;
        this.xid = xid;
        this.transactionId = transactionId;
        this.owner = owner;
    }

    /**
     * Begins a branch of transaction {@code tx} on {@code connection}'s {@code XAResource} and enlists
     * it in {@code tx}, like {@link #start(XAResource, Transaction)}; the connection is closed once the
     * branch is finished (committed, rolled back, or read-only at the vote).
     *
     * @throws XAException if the store refuses to begin the branch (nothing is enlisted then, and the
     *     connection stays open)
     * @throws SQLException if the connection has no {@code XAResource} (it is closed, for example)
     */
    public static XaResourceManager start(XAConnection connection, Transaction tx) throws XAException, SQLException {
        return start(connection.getXAResource(), tx, connection::close);
    }

    /**
     * Begins a branch of transaction {@code tx} on {@code resource} ({@code XAResource.start} with a
     * new branch qualifier) and enlists it in {@code tx}. Call it in the service function before the
     * work on the resource's connection.
     *
     * @throws XAException if the store refuses to begin the branch (nothing is enlisted then)
     */
    public static XaResourceManager start(XAResource resource, Transaction tx) throws XAException {
        return start(resource, tx, null);
    }

    private static XaResourceManager start(XAResource resource, Transaction tx, @Nullable AutoCloseable owner)
            throws XAException {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(tx, "tx: XaResourceManager.start is called in a hop of an atomic chain, with "
                + "Transaction.current()");
        UUID branch = UUID.randomUUID();
        byte[] qualifier = new byte[16];
        long hi = branch.getMostSignificantBits();
        long lo = branch.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            qualifier[i] = (byte) (hi >>> (56 - 8 * i));
            qualifier[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        Xid xid = new BranchId(globalId(tx.id()), qualifier);
        resource.start(xid, XAResource.TMNOFLAGS);
        XaResourceManager rm = new XaResourceManager(resource, xid, tx.id(), owner);
        tx.enlist(rm);
        return rm;
    }

    /**
     * The XA global transaction id of the transaction named {@code transactionId}
     * ({@link Transaction#id()}): {@code rpcc:} and the name in UTF-8, or, if that is longer than
     * {@value Xid#MAXGTRIDSIZE} bytes, {@code rpcc#} and the hex of the first 26 bytes of its SHA-256.
     */
    public static byte[] globalId(String transactionId) {
        byte[] plain = ("rpcc:" + transactionId).getBytes(StandardCharsets.UTF_8);
        if (plain.length <= Xid.MAXGTRIDSIZE) {
            return plain;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(transactionId.getBytes(StandardCharsets.UTF_8));
            return ("rpcc#" + HexFormat.of().formatHex(digest, 0, 26)).getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** The branch's XA id: {@link #FORMAT_ID}, the transaction's global id and this branch's qualifier. */
    public Xid xid() {
        return xid;
    }

    /**
     * Ends the branch's work ({@code TMSUCCESS}) and prepares it in the store. A read-only branch is
     * finished here. Called again (a later hop enlisted the same instance) it does nothing: the work of
     * that later hop belongs in a branch of its own.
     *
     * @throws XAException if the store cannot promise to commit the branch, which votes no
     */
    @Override
    public synchronized void prepare() throws XAException {
        if (state != State.ACTIVE) {
            return;
        }
        resource.end(xid, XAResource.TMSUCCESS);
        state = State.PREPARED;
        if (resource.prepare(xid) == XAResource.XA_RDONLY) {
            state = State.FINISHED;
            release();
        }
    }

    /**
     * Commits the prepared branch (second phase). Does nothing for a read-only branch.
     *
     * @throws XAException if the store did not commit it (a heuristic outcome, logged by the node)
     * @throws IllegalStateException if the branch was never prepared
     */
    @Override
    public synchronized void commit() throws XAException {
        switch (state) {
            case FINISHED -> { }
            case PREPARED -> {
                state = State.FINISHED;
                try {
                    resource.commit(xid, false);
                } finally {
                    release();
                }
            }
            case ACTIVE -> throw new IllegalStateException("XaResourceManager: branch " + this
                    + " is asked to commit without a prepare; it is left to the store's timeout");
        }
    }

    /**
     * Rolls the branch back: ends its work ({@code TMFAIL}) if it is still active, then rolls it back
     * in the store. A branch the store no longer knows ({@code XAER_NOTA}) is taken as rolled back.
     *
     * @throws XAException if the store failed to roll it back
     */
    @Override
    public synchronized void rollback() throws XAException {
        State was = state;
        if (was == State.FINISHED) {
            return;
        }
        state = State.FINISHED;
        if (was == State.ACTIVE) {
            try {
                resource.end(xid, XAResource.TMFAIL);
            } catch (XAException ended) {
                // the store may have ended (or rolled back) the branch itself; the rollback below settles it
            }
        }
        try {
            resource.rollback(xid);
        } catch (XAException e) {
            if (e.errorCode != XAException.XAER_NOTA && e.errorCode != XAException.XA_RBROLLBACK) {
                throw e;
            }
        } finally {
            release();
        }
    }

    /** Closes the connection this branch owns, if any: the branch is finished, whatever its close does. */
    private void release() {
        if (owner == null) {
            return;
        }
        try {
            owner.close();
        } catch (Exception e) {
            log.warn("XaResourceManager: closing the connection of finished branch {} failed", this, e);
        }
    }

    @Override
    public String toString() {
        return "XaResourceManager[transaction " + transactionId + ", branch "
                + HexFormat.of().formatHex(xid.getBranchQualifier()) + ", " + state + "]";
    }

    /** An XA id: rpcc's format id, a global id and a branch qualifier. */
    private record BranchId(byte[] global, byte[] qualifier) implements Xid {
        @Override
        public int getFormatId() {
            return FORMAT_ID;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return global.clone();
        }

        @Override
        public byte[] getBranchQualifier() {
            return qualifier.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Xid x && x.getFormatId() == FORMAT_ID
                    && Arrays.equals(global, x.getGlobalTransactionId()) && Arrays.equals(qualifier, x.getBranchQualifier());
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(global) * 31 + Arrays.hashCode(qualifier);
        }
    }
}
