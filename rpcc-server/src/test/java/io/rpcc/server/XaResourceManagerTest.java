package io.rpcc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.core.TransactionAbortedException;
import io.rpcc.server.atomic.Transaction;
import io.rpcc.server.atomic.XaResourceManager;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * XA branches of one database (H2, in memory, through its {@code XADataSource}) taking part in atomic
 * chains across two real nodes: hop 1 at {@code a} takes stock, hop 2 at {@code b} books the order,
 * each in a branch of its own; the chain's commit commits both in the database's own two-phase commit,
 * and a failure, or a branch the database refuses to prepare, leaves neither and no branch prepared.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class XaResourceManagerTest {
    static JdbcDataSource db;
    static Connection reader;
    static Cluster cluster;
    static RpccClient client;
    /** When positive, the next branches started at {@code b} refuse their prepare. */
    static final AtomicInteger refusePrepares = new AtomicInteger();

    @BeforeAll
    static void start() throws SQLException {
        db = new JdbcDataSource();
        db.setURL("jdbc:h2:mem:xa-rm;DB_CLOSE_DELAY=-1");
        reader = db.getConnection();
        try (Statement s = reader.createStatement()) {
            s.execute("CREATE TABLE stock (item VARCHAR(20) PRIMARY KEY, n INT)");
            s.execute("CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(20))");
            s.execute("INSERT INTO stock VALUES ('lamp', 100)");
        }
        cluster = new Cluster();
        cluster.server("a", s -> s.service("take", p -> {
            String[] order = ((String) p).split(":");
            inBranch(false, c -> update(c, "UPDATE stock SET n = n - 1 WHERE item = ?", order[1]));
            return p;
        }));
        cluster.server("b", s -> s.service("book", p -> {
            String[] order = ((String) p).split(":");
            inBranch(refusePrepares.getAndDecrement() > 0, c -> {
                try (PreparedStatement st = c.prepareStatement("INSERT INTO orders VALUES (?, ?)")) {
                    st.setInt(1, Integer.parseInt(order[0]));
                    st.setString(2, order[1]);
                    st.executeUpdate();
                }
            });
            if (order.length > 2) {
                throw new IllegalStateException("the booking service fails after its insert: " + order[2]);
            }
            return p;
        }));
        client = cluster.client(c -> c.heartbeats(
                io.rpcc.client.Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(60))));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        try (Statement s = reader.createStatement()) {
            s.execute("SHUTDOWN");
        }
        reader.close();
    }

    @BeforeEach
    void noBranchLeftPrepared() throws Exception {
        assertEquals(List.of(), prepared(), "no branch prepared before the test");
    }

    @AfterEach
    void noConnectionLeft() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sessions() != 1) { // (closes run after the decision reached each node)
            if (System.nanoTime() > until) {
                throw new AssertionError(sessions() - 1 + " XA connections still open 20 s after the test");
            }
            Thread.sleep(10);
        }
    }

    interface Work {
        void on(Connection c) throws SQLException;
    }

    /**
     * Runs {@code work} in an XA branch of this hop's transaction; the branch owns its connection (closed
     * when it ends), except a refusing one, closed by the transaction's hooks.
     */
    static void inBranch(boolean refusePrepare, Work work) throws Exception {
        XAConnection xa = db.getXAConnection();
        Transaction tx = Transaction.current();
        if (refusePrepare) {
            XaResourceManager.start(new RefusingPrepare(xa.getXAResource()), tx);
            Runnable close = () -> {
                try {
                    xa.close();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            };
            tx.onCommit(close);
            tx.onAbort(close);
        } else {
            XaResourceManager.start(xa, tx);
        }
        work.on(xa.getConnection()); // (the handle stays open: closing it rolls H2's branch back; it closes with xa)
    }

    static void update(Connection c, String sql, String item) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, item);
            st.executeUpdate();
        }
    }

    static int stock() throws SQLException {
        try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery("SELECT n FROM stock WHERE item = 'lamp'")) {
            r.next();
            return r.getInt(1);
        }
    }

    /** Sessions open at the database (the reader's included). */
    static int sessions() throws SQLException {
        try (Statement s = reader.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS")) {
            r.next();
            return r.getInt(1);
        }
    }

    static int orders() throws SQLException {
        try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM orders")) {
            r.next();
            return r.getInt(1);
        }
    }

    /** The database's prepared branches (XA recover), as their global ids. */
    static List<String> prepared() throws Exception {
        XAConnection xa = db.getXAConnection();
        try {
            List<String> ids = new ArrayList<>();
            for (Xid x : xa.getXAResource().recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)) {
                ids.add(new String(x.getGlobalTransactionId(), StandardCharsets.UTF_8));
            }
            return ids;
        } finally {
            xa.close();
        }
    }

    static ChainCall order(String payload) {
        return ChainCall.along(StaticRoute.of(StaticRoute.hop("a", "take"), StaticRoute.hop("b", "book")), payload)
                .atomic().timeout(Duration.ofSeconds(60));
    }

    @Test
    void bothBranchesCommitWithTheChain() throws Exception {
        int stock = stock();
        int orders = orders();
        ChainResult r = client.runChain(order("1:lamp"));
        assertEquals("1:lamp", r.value());
        assertEquals(stock - 1, stock(), "the stock branch committed when the chain's future completed");
        assertEquals(orders + 1, orders(), "the order branch committed");
        assertEquals(List.of(), prepared(), "no branch left prepared");
    }

    @Test
    void aFailingHopRollsBackTheBranchPreparedBeforeIt() throws Exception {
        int stock = stock();
        int orders = orders();
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class,
                () -> client.runChain(order("2:lamp:closed")));
        assertEquals("b", e.host(), e.getMessage());
        assertTrue(e.getMessage().contains("fails after its insert"), e.getMessage());
        eventuallyNothingPrepared();
        assertEquals(stock, stock(), "hop 1's prepared branch rolled back");
        assertEquals(orders, orders(), "hop 2's insert rolled back with its failed run");
    }

    @Test
    void aBranchTheDatabaseWillNotPrepareVotesNoAndTheOtherRollsBack() throws Exception {
        int stock = stock();
        int orders = orders();
        refusePrepares.set(1);
        TransactionAbortedException e = assertThrows(TransactionAbortedException.class,
                () -> client.runChain(order("3:lamp")));
        assertTrue(e.getMessage().contains("'b' voted no"), e.getMessage());
        assertTrue(e.getMessage().contains("the store refuses"), e.getMessage());
        eventuallyNothingPrepared();
        assertEquals(stock, stock(), "the stock branch, prepared, rolled back");
        assertEquals(orders, orders(), "the order branch rolled back");
    }

    @Test
    void theGlobalIdNamesTheTransactionAndFitsXa() {
        assertEquals("rpcc:client-1/42#0", new String(XaResourceManager.globalId("client-1/42#0"), StandardCharsets.UTF_8));
        byte[] longOne = XaResourceManager.globalId("a-very-long-originator-name-".repeat(4) + "/42#0");
        assertTrue(longOne.length <= Xid.MAXGTRIDSIZE, "a long name is digested to " + longOne.length + " bytes");
        assertTrue(new String(longOne, StandardCharsets.US_ASCII).startsWith("rpcc#"));
    }

    static void eventuallyNothingPrepared() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!prepared().isEmpty()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("branches still prepared after 20 s: " + prepared());
            }
            Thread.sleep(10);
        }
    }

    /** An XA resource of a store that refuses to prepare (as a database would on a conflict found at prepare). */
    record RefusingPrepare(XAResource inner) implements XAResource {
        @Override
        public int prepare(Xid xid) throws XAException {
            XAException e = new XAException("the store refuses to prepare branch: serialization conflict");
            e.errorCode = XAException.XA_RBINTEGRITY;
            throw e;
        }

        @Override
        public void commit(Xid xid, boolean onePhase) throws XAException {
            inner.commit(xid, onePhase);
        }

        @Override
        public void end(Xid xid, int flags) throws XAException {
            inner.end(xid, flags);
        }

        @Override
        public void forget(Xid xid) throws XAException {
            inner.forget(xid);
        }

        @Override
        public int getTransactionTimeout() throws XAException {
            return inner.getTransactionTimeout();
        }

        @Override
        public boolean isSameRM(XAResource other) throws XAException {
            return inner.isSameRM(other);
        }

        @Override
        public Xid[] recover(int flag) throws XAException {
            return inner.recover(flag);
        }

        @Override
        public void rollback(Xid xid) throws XAException {
            inner.rollback(xid);
        }

        @Override
        public boolean setTransactionTimeout(int seconds) throws XAException {
            return inner.setTransactionTimeout(seconds);
        }

        @Override
        public void start(Xid xid, int flags) throws XAException {
            inner.start(xid, flags);
        }
    }
}
