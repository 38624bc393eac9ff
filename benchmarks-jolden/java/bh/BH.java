package bh;

import java.util.Random;

import jolden.Alloc;
import jolden.Num;

/**
 * BH: the Barnes-Hut n-body simulation in three dimensions. Every step the bodies are put in an
 * octree of cells, each cell learns the mass and centre of mass below it, and each body's
 * acceleration sums the cells far enough away (size / distance below THETA) as single masses and
 * opens the nearer ones; then velocities and positions advance by one time step. Written here
 * from the algorithm (JOlden's bh), not from any implementation. Bodies are assumed to sit at
 * distinct positions (with random doubles they do).
 *
 * Analyzed methods: {@link #createTestData(int)} allocates 4 * nbody + 1 objects;
 * {@link #makeTree(Body[], int)} allocates two objects per cell, a number that depends on the
 * positions; {@link #computeForces(Cell, Body[], int)} and {@link #advance(Body[], int)}
 * allocate nothing.
 */
public final class BH {
    static final double THETA = 0.5;
    static final double EPS2 = 1.0e-4;
    static final double DT = 1.0e-3;

    /** The random numbers of the run, from a fixed seed as in the original. */
    private static final Random random = new Random(123);
    private static int nbody = 256;
    private static int steps = 4;

    public static void main(String[] args) {
        parseCmdLine(args);
        Alloc.start();
        Body[] bodies = createTestData(nbody);
        Alloc.report("bh.BH.createTestData");
        int firstCells = 0;
        for (int s = 0; s < steps; s++) {
            Alloc.start();
            Cell root = makeTree(bodies, nbody);
            if (s == 0) {
                Alloc.report("bh.BH.makeTree");
                firstCells = root.countCells();
            }
            Alloc.start();
            computeForces(root, bodies, nbody);
            if (s == 0) {
                Alloc.report("bh.BH.computeForces");
            }
            Alloc.start();
            advance(bodies, nbody);
            if (s == 0) {
                Alloc.report("bh.BH.advance");
            }
        }
        System.out.println("bh: bodies " + nbody + " steps " + steps + " firstCells " + firstCells
                + " x0 " + (nbody > 0 ? bodies[0].pos.x : 0));
    }

    /**
     * Reads the options, as the original does: `-h` or an option it does not know prints the
     * usage and ends the program.
     */
    private static void parseCmdLine(String[] args) {
        int i = 0;
        while (i < args.length && args[i].startsWith("-")) {
            String arg = args[i++];
            if (arg.equals("-b")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-b requires the number of bodies");
                }
                nbody = Integer.parseInt(args[i++]);
            } else             if (arg.equals("-s")) {
                if (i >= args.length) {
                    throw new IllegalArgumentException("-s requires the number of time steps");
                }
                steps = Integer.parseInt(args[i++]);
            } else if (arg.equals("-p") || arg.equals("-m")) {
                // The original's printing flags: the results are always printed.
            } else {
                usage();
            }
        }
    }

    /** Prints the options and their defaults and ends the program. */
    private static void usage() {
        System.err.println("usage: java bh.BH [-b nbody] [-s steps] [-p] [-m] [-h]");
        System.err.println("    -b  the number of bodies (256)");
        System.err.println("    -s  the number of time steps (4)");
        System.exit(0);
    }

    /** `nbody` bodies of equal mass, uniformly in the unit cube, nearly at rest. */
    static Body[] createTestData(int nbody) {
        Body[] bodies = new Body[nbody];
        Alloc.array(nbody);
        for (int i = 0; i < nbody; i++) {
            Body b = new Body();
            Alloc.object();
            b.mass = 1.0 / nbody;
            b.pos = randomVector(1.0);
            b.vel = randomVector(0.01);
            b.acc = new Vec();
            Alloc.object();
            bodies[i] = b;
        }
        return bodies;
    }

    private static Vec randomVector(double scale) {
        Vec v = new Vec();
        Alloc.object();
        v.x = scale * random.nextDouble();
        v.y = scale * random.nextDouble();
        v.z = scale * random.nextDouble();
        return v;
    }

    /** The octree of the bodies, in a cube around all of them, with masses filled in. */
    static Cell makeTree(Body[] bodies, int nbody) {
        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        for (int i = 0; i < nbody; i++) {
            Vec p = bodies[i].pos;
            // Not Math.min and Math.max: java.lang.Math's initializer drags much of the JDK
            // into a call graph.
            lo = p.x < lo ? p.x : lo;
            lo = p.y < lo ? p.y : lo;
            lo = p.z < lo ? p.z : lo;
            hi = p.x > hi ? p.x : hi;
            hi = p.y > hi ? p.y : hi;
            hi = p.z > hi ? p.z : hi;
        }
        double size = nbody > 0 ? hi - lo + 1.0e-9 : 1;
        Cell root = newCell(lo, lo, lo, size);
        for (int i = 0; i < nbody; i++) {
            insert(root, bodies[i]);
        }
        root.summarize();
        return root;
    }

    private static Cell newCell(double x, double y, double z, double size) {
        Cell c = new Cell();
        Alloc.object();
        c.x = x;
        c.y = y;
        c.z = z;
        c.size = size;
        c.sub = new Node[8];
        Alloc.array(8);
        return c;
    }

    /** Puts `b` below `c`, splitting a leaf shared with another body into a new cell. */
    private static void insert(Cell c, Body b) {
        int i = c.octant(b.pos);
        Node n = c.sub[i];
        if (n == null) {
            c.sub[i] = b;
        } else if (n instanceof Cell) {
            insert((Cell) n, b);
        } else {
            double h = c.size / 2;
            Cell s = newCell(c.x + ((i & 1) != 0 ? h : 0), c.y + ((i & 2) != 0 ? h : 0),
                    c.z + ((i & 4) != 0 ? h : 0), h);
            c.sub[i] = s;
            insert(s, (Body) n);
            insert(s, b);
        }
    }

    /** Each body's acceleration from the tree. */
    static void computeForces(Cell root, Body[] bodies, int nbody) {
        for (int i = 0; i < nbody; i++) {
            Body b = bodies[i];
            b.acc.x = 0;
            b.acc.y = 0;
            b.acc.z = 0;
            gravity(root, b);
        }
    }

    private static void gravity(Node n, Body b) {
        if (n == b) {
            return;
        }
        double dx = n.cx - b.pos.x;
        double dy = n.cy - b.pos.y;
        double dz = n.cz - b.pos.z;
        double d2 = dx * dx + dy * dy + dz * dz + EPS2;
        if (n instanceof Cell) {
            Cell c = (Cell) n;
            if (c.size * c.size >= THETA * THETA * d2) {
                for (int i = 0; i < 8; i++) {
                    if (c.sub[i] != null) {
                        gravity(c.sub[i], b);
                    }
                }
                return;
            }
        }
        double f = n.mass / (d2 * Num.sqrt(d2));
        b.acc.x += f * dx;
        b.acc.y += f * dy;
        b.acc.z += f * dz;
    }

    /** One leapfrog-style step of every body. */
    static void advance(Body[] bodies, int nbody) {
        for (int i = 0; i < nbody; i++) {
            Body b = bodies[i];
            b.vel.x += DT * b.acc.x;
            b.vel.y += DT * b.acc.y;
            b.vel.z += DT * b.acc.z;
            b.pos.x += DT * b.vel.x;
            b.pos.y += DT * b.vel.y;
            b.pos.z += DT * b.vel.z;
        }
    }
}

final class Vec {
    double x;
    double y;
    double z;
}

/** A body or a cell of the tree; (cx, cy, cz) is the centre of mass. */
abstract class Node {
    double mass;
    double cx;
    double cy;
    double cz;
}

final class Body extends Node {
    Vec pos;
    Vec vel;
    Vec acc;
}

final class Cell extends Node {
    double x;
    double y;
    double z;
    double size;
    Node[] sub;

    /** The octant of `p` in this cube: bit 0 for the upper x half, 1 for y, 2 for z. */
    int octant(Vec p) {
        double h = size / 2;
        return (p.x >= x + h ? 1 : 0) | (p.y >= y + h ? 2 : 0) | (p.z >= z + h ? 4 : 0);
    }

    /** Fills in the mass and centre of mass of this cell and the cells below it. */
    void summarize() {
        mass = 0;
        cx = 0;
        cy = 0;
        cz = 0;
        for (int i = 0; i < 8; i++) {
            Node n = sub[i];
            if (n == null) {
                continue;
            }
            if (n instanceof Cell) {
                ((Cell) n).summarize();
            } else {
                Body b = (Body) n;
                b.cx = b.pos.x;
                b.cy = b.pos.y;
                b.cz = b.pos.z;
            }
            mass += n.mass;
            cx += n.mass * n.cx;
            cy += n.mass * n.cy;
            cz += n.mass * n.cz;
        }
        if (mass > 0) {
            cx /= mass;
            cy /= mass;
            cz /= mass;
        }
    }

    int countCells() {
        int count = 1;
        for (int i = 0; i < 8; i++) {
            if (sub[i] instanceof Cell) {
                count += ((Cell) sub[i]).countCells();
            }
        }
        return count;
    }
}
