package voronoi;

import java.util.Random;

import jolden.Alloc;

/**
 * Voronoi: the Voronoi diagram of random points through its dual, the Delaunay triangulation,
 * computed by Guibas and Stolfi's divide and conquer on the quad-edge structure: the points sorted
 * by x are split in halves, each half is triangulated, and the halves are zipped together from
 * their lower common tangent upwards, deleting the edges that fail the empty-circle test. Every
 * Voronoi vertex is the circumcentre of a Delaunay triangle and every Voronoi edge crosses a
 * Delaunay edge. Written here from the algorithm (JOlden's voronoi), not from any implementation.
 *
 * Analyzed methods: {@link #makePoints(int)} allocates n + 1 objects; {@link #triangulate(Point[],
 * int)} allocates five objects per edge it makes, a number that depends on the points (at least
 * the 3n - 3 - h edges of the result, h the points on the hull), and one pair per recursive call.
 */
public final class Voronoi {
    /** Edges alive and edges deleted so far (plain counters; they allocate nothing). */
    static int alive;
    static int deleted;

    /** The random numbers of the run, from a fixed seed as in the original. */
    private static final Random random = new Random(1024);
    private static int n = 1000;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Point[] points = makePoints(n);
        Alloc.report("voronoi.Voronoi.makePoints");
        Alloc.start();
        Edge hull = triangulate(points, n);
        Alloc.report("voronoi.Voronoi.triangulate");
        int hullSize = 0;
        if (hull != null) {
            Edge e = hull;
            do {
                hullSize++;
                e = e.rPrev();
            } while (e != hull);
        }
        System.out.println("voronoi: points " + n + " edges " + alive + " deleted " + deleted
                + " hull " + hullSize);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-n")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-n requires the number of points");
                }
                n = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java voronoi.Voronoi [-n n] [-p] [-m] [-h]");
        System.err.println("    -n  the number of points (1000)");
        System.exit(0);
    }

    /** `n` random points in the unit square, sorted by x (their x are distinct). */
    static Point[] makePoints(int n) {
        Point[] points = new Point[n];
        Alloc.array(n);
        fillPoints(points, 0, n, 0.0, 1.0);
        return points;
    }

    /**
     * The points `lo .. hi - 1`, with x in [x0, x1), by recursion as the original builds its
     * points: the middle one first, at a random x within its share of the range, then each half
     * on its own side of it, so the points come out sorted.
     */
    private static void fillPoints(Point[] points, int lo, int hi, double x0, double x1) {
        if (lo >= hi) {
            return;
        }
        int mid = (lo + hi) / 2;
        Point p = new Point();
        Alloc.object();
        double share = (x1 - x0) / (hi - lo);
        p.x = x0 + share * ((mid - lo) + random.nextDouble());
        p.y = random.nextDouble();
        points[mid] = p;
        fillPoints(points, lo, mid, x0, p.x);
        fillPoints(points, mid + 1, hi, p.x, x1);
    }

    /**
     * The Delaunay triangulation of the `n` sorted, distinct points; returns an edge of the convex
     * hull with the outside on its right (null below two points).
     */
    static Edge triangulate(Point[] points, int n) {
        alive = 0;
        deleted = 0;
        if (n < 2) {
            return null;
        }
        return delaunay(points, 0, n)[0];
    }

    /**
     * Triangulates points[lo, hi) (at least two points); returns the hull edge leaving the leftmost
     * point counter-clockwise and the hull edge leaving the rightmost point clockwise.
     */
    private static Edge[] delaunay(Point[] s, int lo, int hi) {
        int n = hi - lo;
        if (n == 2) {
            Edge a = Edge.make(s[lo], s[lo + 1]);
            return pair(a, a.sym());
        }
        if (n == 3) {
            Point p1 = s[lo];
            Point p2 = s[lo + 1];
            Point p3 = s[lo + 2];
            Edge a = Edge.make(p1, p2);
            Edge b = Edge.make(p2, p3);
            Edge.splice(a.sym(), b);
            if (ccw(p1, p2, p3)) {
                connect(b, a);
                return pair(a, b.sym());
            }
            if (ccw(p1, p3, p2)) {
                Edge c = connect(b, a);
                return pair(c.sym(), c);
            }
            return pair(a, b.sym());
        }
        int mid = lo + n / 2;
        Edge[] left = delaunay(s, lo, mid);
        Edge[] right = delaunay(s, mid, hi);
        Edge ldo = left[0];
        Edge ldi = left[1];
        Edge rdi = right[0];
        Edge rdo = right[1];
        // The lower common tangent of the two halves.
        while (true) {
            if (leftOf(rdi.org, ldi)) {
                ldi = ldi.lNext();
            } else if (rightOf(ldi.org, rdi)) {
                rdi = rdi.rPrev();
            } else {
                break;
            }
        }
        Edge basel = connect(rdi.sym(), ldi);
        if (ldi.org == ldo.org) {
            ldo = basel.sym();
        }
        if (rdi.org == rdo.org) {
            rdo = basel;
        }
        // Zip upwards: each round adds the cross edge to the better of the two candidates.
        while (true) {
            Edge lcand = basel.sym().next;
            if (valid(lcand, basel)) {
                while (inCircle(basel.dest(), basel.org, lcand.dest(), lcand.next.dest())) {
                    Edge t = lcand.next;
                    delete(lcand);
                    lcand = t;
                }
            }
            Edge rcand = basel.oPrev();
            if (valid(rcand, basel)) {
                while (inCircle(basel.dest(), basel.org, rcand.dest(), rcand.oPrev().dest())) {
                    Edge t = rcand.oPrev();
                    delete(rcand);
                    rcand = t;
                }
            }
            boolean lValid = valid(lcand, basel);
            boolean rValid = valid(rcand, basel);
            if (!lValid && !rValid) {
                break;
            }
            if (!lValid || (rValid && inCircle(lcand.dest(), lcand.org, rcand.org, rcand.dest()))) {
                basel = connect(rcand, basel.sym());
            } else {
                basel = connect(basel.sym(), lcand.sym());
            }
        }
        return pair(ldo, rdo);
    }

    private static Edge[] pair(Edge a, Edge b) {
        Edge[] result = new Edge[2];
        Alloc.array(2);
        result[0] = a;
        result[1] = b;
        return result;
    }

    /** A new edge from the destination of `a` to the origin of `b`, in both their rings. */
    private static Edge connect(Edge a, Edge b) {
        Edge e = Edge.make(a.dest(), b.org);
        Edge.splice(e, a.lNext());
        Edge.splice(e.sym(), b);
        return e;
    }

    private static void delete(Edge e) {
        Edge.splice(e, e.oPrev());
        Edge.splice(e.sym(), e.sym().oPrev());
        alive--;
        deleted++;
    }

    private static boolean valid(Edge e, Edge basel) {
        return rightOf(e.dest(), basel);
    }

    static boolean ccw(Point a, Point b, Point c) {
        return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) > 0;
    }

    private static boolean rightOf(Point p, Edge e) {
        return ccw(p, e.dest(), e.org);
    }

    private static boolean leftOf(Point p, Edge e) {
        return ccw(p, e.org, e.dest());
    }

    /** Whether `d` lies inside the circle through `a`, `b`, `c` (counter-clockwise). */
    private static boolean inCircle(Point a, Point b, Point c, Point d) {
        double adx = a.x - d.x;
        double ady = a.y - d.y;
        double bdx = b.x - d.x;
        double bdy = b.y - d.y;
        double cdx = c.x - d.x;
        double cdy = c.y - d.y;
        double a2 = adx * adx + ady * ady;
        double b2 = bdx * bdx + bdy * bdy;
        double c2 = cdx * cdx + cdy * cdy;
        return adx * (bdy * c2 - b2 * cdy) - ady * (bdx * c2 - b2 * cdx)
                + a2 * (bdx * cdy - bdy * cdx) > 0;
    }
}

final class Point {
    double x;
    double y;
}

/**
 * One of the four directed edges of a quad-edge: `rot` turns it a quarter counter-clockwise (to
 * the dual), `next` is the next edge counter-clockwise around its origin.
 */
final class Edge {
    Point org;
    Edge next;
    Edge rot;

    /** A new quad-edge from `a` to `b`, alone in its rings: one record and its four edges. */
    static Edge make(Point a, Point b) {
        QuadEdge q = new QuadEdge();
        Alloc.object();
        Edge e0 = new Edge();
        Edge e1 = new Edge();
        Edge e2 = new Edge();
        Edge e3 = new Edge();
        for (int i = 0; i < 4; i++) {
            Alloc.object();
        }
        e0.rot = e1;
        e1.rot = e2;
        e2.rot = e3;
        e3.rot = e0;
        e0.next = e0;
        e2.next = e2;
        e1.next = e3;
        e3.next = e1;
        e0.org = a;
        e2.org = b;
        q.first = e0;
        Voronoi.alive++;
        return e0;
    }

    /** Joins or separates the rings of `a` and `b` (and of their duals). */
    static void splice(Edge a, Edge b) {
        Edge alpha = a.next.rot;
        Edge beta = b.next.rot;
        Edge t1 = b.next;
        Edge t2 = a.next;
        Edge t3 = beta.next;
        Edge t4 = alpha.next;
        a.next = t1;
        b.next = t2;
        alpha.next = t3;
        beta.next = t4;
    }

    Edge sym() {
        return rot.rot;
    }

    Edge invRot() {
        return rot.rot.rot;
    }

    Point dest() {
        return sym().org;
    }

    /** The next edge clockwise around the origin. */
    Edge oPrev() {
        return rot.next.rot;
    }

    /** The next edge counter-clockwise around the left face. */
    Edge lNext() {
        return invRot().next.rot;
    }

    /** The previous edge around the right face: the next one around the destination. */
    Edge rPrev() {
        return sym().next;
    }
}

/** The record that owns a quad-edge's four edges. */
final class QuadEdge {
    Edge first;
}
