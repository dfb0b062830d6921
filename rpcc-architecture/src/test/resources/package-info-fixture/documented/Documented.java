package documented;

/** Fixture. */
class Documented {
}
