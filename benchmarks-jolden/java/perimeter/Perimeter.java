package perimeter;

import jolden.Alloc;

/**
 * Perimeter: the perimeter of the black region of a 2^levels square image stored as a quadtree,
 * found from each black leaf by looking up its neighbours of equal or larger size through the
 * parents (Samet's neighbour finding). The image is black strictly above the diagonal (x > y,
 * y grows southwards): its quadtree has a grey square on the diagonal at every level, so the
 * tree's size has a closed form and the perimeter is 4(2^levels - 1). Written here from the
 * algorithm (JOlden's perimeter), not from any implementation.
 *
 * Analyzed methods: {@link #build(int)} allocates 2^(levels+2) - 3 nodes (recursion),
 * {@link #perimeter(Quad, int)} allocates nothing.
 */
public final class Perimeter {
    static final int WHITE = 0;
    static final int BLACK = 1;
    static final int GREY = 2;
    // Quadrants: bit 0 set for east, bit 1 set for south.
    static final int NW = 0;
    static final int NE = 1;
    static final int SW = 2;
    static final int SE = 3;
    // Directions of a side.
    static final int NORTH = 0;
    static final int EAST = 1;
    static final int SOUTH = 2;
    static final int WEST = 3;

    private static int levels = 10;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Quad root = build(levels);
        Alloc.report("perimeter.Perimeter.build");
        Alloc.start();
        int p = perimeter(root, 1 << levels);
        Alloc.report("perimeter.Perimeter.perimeter");
        System.out.println("perimeter: levels " + levels + " perimeter " + p);
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-l")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException(
                            "-l requires the number of levels of the quadtree");
                }
                levels = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java perimeter.Perimeter [-l levels] [-p] [-m] [-h]");
        System.err.println("    -l  the number of levels of the quadtree (10)");
        System.exit(0);
    }

    /** The quadtree of the 2^levels image. */
    static Quad build(int levels) {
        return make(0, 0, 1 << levels, null, NW);
    }

    private static Quad make(int x0, int y0, int size, Quad parent, int type) {
        Quad q = new Quad();
        Alloc.object();
        q.parent = parent;
        q.type = type;
        if (x0 - (y0 + size - 1) > 0) {
            q.color = BLACK;
        } else if (x0 + size - 1 - y0 <= 0) {
            q.color = WHITE;
        } else {
            q.color = GREY;
            int h = size / 2;
            q.nw = make(x0, y0, h, q, NW);
            q.ne = make(x0 + h, y0, h, q, NE);
            q.sw = make(x0, y0 + h, h, q, SW);
            q.se = make(x0 + h, y0 + h, h, q, SE);
        }
        return q;
    }

    /** The perimeter of the black leaves below `q`, a square of side `size`. */
    static int perimeter(Quad q, int size) {
        if (q.color == GREY) {
            int h = size / 2;
            return perimeter(q.nw, h) + perimeter(q.ne, h) + perimeter(q.sw, h)
                    + perimeter(q.se, h);
        }
        if (q.color == WHITE) {
            return 0;
        }
        int p = 0;
        for (int dir = NORTH; dir <= WEST; dir++) {
            Quad n = neighbour(q, dir);
            if (n == null || n.color == WHITE) {
                p += size;
            } else if (n.color == GREY) {
                p += whiteAlong(n, (dir + 2) % 4, size);
            }
        }
        return p;
    }

    /** The neighbour on side `dir` of `q` of equal or larger size; null at the image's border. */
    private static Quad neighbour(Quad q, int dir) {
        Quad p = q.parent;
        Quad n = p != null && onSide(dir, q.type) ? neighbour(p, dir) : p;
        if (n != null && n.color == GREY) {
            return n.child(q.type ^ (dir % 2 == 0 ? 2 : 1));
        }
        return n;
    }

    /** Whether quadrant `type` touches side `dir` of its parent. */
    private static boolean onSide(int dir, int type) {
        switch (dir) {
            case NORTH:
                return (type & 2) == 0;
            case SOUTH:
                return (type & 2) != 0;
            case EAST:
                return (type & 1) != 0;
            default:
                return (type & 1) == 0;
        }
    }

    /** The length of white border along side `side` of `q`, a square of side `size`. */
    private static int whiteAlong(Quad q, int side, int size) {
        if (q.color == WHITE) {
            return size;
        }
        if (q.color == BLACK) {
            return 0;
        }
        int sum = 0;
        for (int t = NW; t <= SE; t++) {
            if (onSide(side, t)) {
                sum += whiteAlong(q.child(t), side, size / 2);
            }
        }
        return sum;
    }
}

final class Quad {
    int color;
    int type;
    Quad parent;
    Quad nw;
    Quad ne;
    Quad sw;
    Quad se;

    Quad child(int t) {
        switch (t) {
            case Perimeter.NW:
                return nw;
            case Perimeter.NE:
                return ne;
            case Perimeter.SW:
                return sw;
            default:
                return se;
        }
    }
}
