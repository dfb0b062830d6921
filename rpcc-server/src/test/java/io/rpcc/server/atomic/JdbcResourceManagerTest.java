package io.rpcc.server.atomic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.internal.wire.TxKey;
import io.rpcc.core.internal.wire.TxStamp;
import io.rpcc.server.internal.atomic.HopRun;
import io.rpcc.server.internal.atomic.LocalTransactions;
import io.rpcc.server.internal.atomic.Participant;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A JDBC local transaction (H2, in memory) committed and rolled back with an atomic chain's transaction. */
class JdbcResourceManagerTest {
    private static final AtomicLong DATABASES = new AtomicLong();

    private final LocalTransactions node = new LocalTransactions((victim, stamp, by) -> { });
    private String url;
    private Connection reader;

    @BeforeEach
    void database() throws SQLException {
        url = "jdbc:h2:mem:jdbc-rm-" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        reader = DriverManager.getConnection(url);
        try (Statement s = reader.createStatement()) {
            s.execute("CREATE TABLE stock (item VARCHAR(20) PRIMARY KEY, n INT)");
            s.execute("INSERT INTO stock VALUES ('bolt', 10)");
        }
    }

    @AfterEach
    void close() throws SQLException {
        try (Statement s = reader.createStatement()) {
            s.execute("SHUTDOWN");
        }
        reader.close();
    }

    private int stock() throws SQLException {
        try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery("SELECT n FROM stock WHERE item = 'bolt'")) {
            assertTrue(r.next());
            return r.getInt(1);
        }
    }

    /** A hop that takes {@code n} bolts on {@code c} and enlists it. */
    private HopRun<Object> take(Participant p, Connection c, int n) {
        return node.run(p, () -> {
            Transaction.current().enlist(new JdbcResourceManager(c));
            try (PreparedStatement s = c.prepareStatement("UPDATE stock SET n = n - ? WHERE item = 'bolt'")) {
                s.setInt(1, n);
                s.executeUpdate();
            }
            return null;
        });
    }

    private Participant tx(long chain) {
        return node.join(new TxKey("o", chain, 0), new TxStamp(false, chain, 1));
    }

    @Test
    void theConnectionCommitsWithTheTransaction() throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            Participant p = tx(1);
            assertInstanceOf(HopRun.Done.class, take(p, c, 3));
            assertEquals(10, stock(), "not visible before the commit");
            assertTrue(node.prepare(p).yes());
            node.commit(p.key());
            assertEquals(7, stock());
        }
    }

    @Test
    void theConnectionRollsBackWithTheTransaction() throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            Participant p = tx(1);
            assertInstanceOf(HopRun.Done.class, take(p, c, 3));
            node.abort(p.key(), "wounded");
            assertEquals(10, stock());
        }
    }

    @Test
    void aFailedHopsWorkIsRolledBackAtOnce() throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            Participant p = tx(1);
            HopRun<Object> r = node.run(p, () -> {
                Transaction.current().enlist(new JdbcResourceManager(c));
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("UPDATE stock SET n = 0");
                }
                throw new IllegalStateException("the service function fails after its update");
            });
            assertInstanceOf(HopRun.Failed.class, r);
            assertInstanceOf(HopRun.Done.class, take(p, c, 1));
            assertTrue(node.prepare(p).yes());
            node.commit(p.key());
            assertEquals(9, stock(), "only the kept hop's update committed");
        }
    }

    @Test
    void aClosedConnectionVotesNo() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        c.setAutoCommit(false);
        Participant p = tx(1);
        assertInstanceOf(HopRun.Done.class, take(p, c, 3));
        c.close();
        LocalTransactions.Vote vote = node.prepare(p);
        assertFalse(vote.yes());
        assertTrue(vote.why().contains("no longer valid"), vote.why());
        node.abort(p.key(), "voted no"); // the rollback on a closed connection fails and is logged
        assertEquals(10, stock());
    }

    @Test
    void autocommitIsRefused() throws SQLException {
        try (Connection c = DriverManager.getConnection(url)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new JdbcResourceManager(c));
            assertTrue(e.getMessage().contains("setAutoCommit(false)"), e.getMessage());
            c.setAutoCommit(false);
            JdbcResourceManager rm = new JdbcResourceManager(c);
            c.setAutoCommit(true);
            SQLException x = assertThrows(SQLException.class, rm::prepare);
            assertTrue(x.getMessage().contains("autocommit"), x.getMessage());
        }
    }
}
