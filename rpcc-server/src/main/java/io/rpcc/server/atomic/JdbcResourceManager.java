package io.rpcc.server.atomic;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * A JDBC connection's local transaction taking part in an atomic chain: the service function does its
 * work on the connection (autocommit off) and enlists it; the connection commits when the chain's
 * transaction commits and rolls back when it aborts.
 *
 * <pre>{@code
 * Connection c = dataSource.getConnection();
 * c.setAutoCommit(false);
 * Transaction.current().enlist(new JdbcResourceManager(c));
 * try (var s = c.prepareStatement("UPDATE stock SET n = n - ? WHERE item = ?")) { ... }
 * // close the connection (or give it back to the pool) in onCommit and onAbort hooks
 * }</pre>
 *
 * <p><strong>The last-resource caveat.</strong> A JDBC local transaction has no real prepare phase:
 * {@link #prepare()} only checks that the connection is still open, valid and not in autocommit
 * mode. The database may still refuse the {@link #commit()} that follows (a constraint checked at
 * commit, a lost connection, a serialization failure), after other participants have committed: the
 * outcome is then mixed, logged and counted as a heuristic one. Keep to one JDBC resource per
 * transaction and let the database check what it can before the vote (deferred constraints off,
 * statements executed, not batched for later), or use a store with a real prepare.
 */
public final class JdbcResourceManager implements ResourceManager {
    /** How long {@link #prepare()} waits for the connection's validity check, in seconds. */
    public static final int VALIDITY_TIMEOUT_SECONDS = 5;

    private final Connection connection;

    /**
     * A resource manager for {@code connection}, whose autocommit must be off.
     *
     * @throws IllegalArgumentException if the connection is in autocommit mode
     * @throws SQLException if the connection cannot tell (it is closed, for example)
     */
    public JdbcResourceManager(Connection connection) throws SQLException {
        this.connection = Objects.requireNonNull(connection, "connection");
        if (connection.getAutoCommit()) {
            throw new IllegalArgumentException("JdbcResourceManager: the connection is in autocommit mode,"
                    + " so its statements would commit at once, outside the atomic chain's transaction;"
                    + " call setAutoCommit(false) before the work and before enlisting it");
        }
    }

    /** The connection. */
    public Connection connection() {
        return connection;
    }

    /**
     * Checks that the connection can still commit: not closed, valid within
     * {@value #VALIDITY_TIMEOUT_SECONDS} seconds, autocommit still off. Does nothing else (see the
     * last-resource caveat above).
     *
     * @throws SQLException if it cannot, which votes no
     */
    @Override
    public void prepare() throws SQLException {
        if (connection.isClosed() || !connection.isValid(VALIDITY_TIMEOUT_SECONDS)) {
            throw new SQLException("JdbcResourceManager: the connection was closed or is no longer valid before the"
                    + " transaction's vote, so its work cannot be committed; the transaction aborts");
        }
        if (connection.getAutoCommit()) {
            throw new SQLException("JdbcResourceManager: the connection was switched to autocommit during the"
                    + " transaction, so part of its work may have committed already; the transaction aborts."
                    + " Keep autocommit off until the transaction ends");
        }
    }

    /** Commits the connection's local transaction. */
    @Override
    public void commit() throws SQLException {
        connection.commit();
    }

    /** Rolls the connection's local transaction back. */
    @Override
    public void rollback() throws SQLException {
        connection.rollback();
    }

    @Override
    public String toString() {
        return "JdbcResourceManager[" + connection + "]";
    }
}
