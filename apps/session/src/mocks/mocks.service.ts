import { Inject, Injectable } from '@nestjs/common';
import {
  AppError,
  LIST_TOOLS_TOOL,
  SESSION_MAX_MOCKS,
  actionOf,
  isActingMetaTool,
  isAmountProblem,
  isMetaToolName,
  type ActingMetaTool,
  type MockCreateCommand,
  type MockList,
  type MockListCommand,
  type MockView,
  type Tenant,
} from '@rota/contracts';
import { CONFIG, createLogger, currentTenant } from '@rota/service-kit';
import type { SessionConfig } from '../config';
import { callableCandidates } from '../tools/callable-name';
import { ToolsRepository } from '../tools/tools.repository';
import { amountOf } from '../rails/rails.service';
import { SessionsService } from '../sessions/sessions.service';
import { MocksRepository, type MockTake } from './mocks.repository';

/** A call as the mocks see it. */
export interface MockedCall {
  tenant: Tenant;
  /** Null in the project context (`POST /mcp`), which has no mocks. */
  sessionId: string | null;
  /** The resolved callable name, `server/tool`. */
  tool: string;
}

/** An acting meta-tool call as the mocks see it. */
export interface MockedMetaCall {
  tenant: Tenant;
  sessionId: string | null;
  tool: ActingMetaTool;
  /** The coerced arguments: a mock never answers money the rails would refuse. */
  input: Record<string, unknown>;
}

const invalidTool = (message: string) =>
  new AppError('invalid_body', message, { issues: [{ path: ['tool'], message, code: 'custom' }] });

/**
 * Mocks in test-environment sessions, of raw catalog tools and of acting
 * meta-tools.
 *
 * Raw tools: once a session has any raw-tool mock, its raw tool calls answer
 * only from mocks: a mock with answers left answers (and never reaches a
 * provider), a used-up tool is `mocks_exhausted`, a tool without a mock
 * `tool_not_mocked`.
 *
 * Acting meta-tools (`codespar_charge`…): a mock with answers left answers
 * before any rail is picked; with none left (or none defined) the call runs
 * on its rails as usual. A meta-tool never answers 422.
 *
 * Live keys and calls outside a session never read the store. The store
 * failing is `mocks_engine_error`: fail closed, since the session may hold
 * mocks that must keep its calls away from providers.
 */
@Injectable()
export class MocksService {
  private readonly log;

  constructor(
    @Inject(CONFIG) config: SessionConfig,
    private readonly repo: MocksRepository,
    private readonly sessions: SessionsService,
    private readonly catalog: ToolsRepository,
  ) {
    this.log = createLogger('session', config.LOG_LEVEL);
  }

  async create({ session_id, body }: MockCreateCommand): Promise<MockView> {
    const tenant = currentTenant();
    const session = await this.sessions.find(tenant, session_id);
    if (session.environment !== 'test') {
      throw new AppError(
        'mocks_test_only',
        'Mocks exist only in the test environment; use a test key and a test session.',
      );
    }
    if (session.status !== 'active') {
      throw new AppError(
        'session_not_active',
        `The session is ${session.status}; open a new session to define mocks.`,
        { status: session.status },
      );
    }
    const tool = await this.resolve(body.tool, session.servers, tenant.project_id);
    const row = await this.store(() =>
      this.repo.create({
        sessionId: session.id,
        tool,
        response: body.response,
        times: body.times,
        max: SESSION_MAX_MOCKS,
      }),
    );
    if (!row) {
      const message = `A session holds at most ${SESSION_MAX_MOCKS} mocks; open a new session for more.`;
      throw new AppError('invalid_body', message, { issues: [{ path: [], message, code: 'custom' }] });
    }
    return row;
  }

  async list({ session_id }: MockListCommand): Promise<MockList> {
    const session = await this.sessions.find(currentTenant(), session_id);
    const mocks = await this.store(() => this.repo.list(session.id));
    return { session_id: session.id, mocks };
  }

  /**
   * The mocked answer of an acting meta-tool call, or null when there is
   * none to give (a live key, no session, no mock of the tool with answers
   * left, or an amount the rails refuse as \`invalid_args\`, so a mock never
   * hides bad money): the rails engine then runs the call. Never a 422; the
   * store failing is the 503.
   */
  async answerMetaTool(call: MockedMetaCall): Promise<{ response: unknown } | null> {
    if (call.tenant.environment !== 'test' || call.sessionId === null) return null;
    const amount = amountOf(call.tool, actionOf(call.tool, call.input), call.input);
    if (amount && isAmountProblem(amount)) return null;
    const sessionId = call.sessionId;
    const found = await this.store(() => this.repo.take(sessionId, call.tool));
    return found.taken ? { response: found.taken.response } : null;
  }

  /**
   * The mocked answer of one raw tool call, or null when mocks do not apply
   * (a live key, no session, a session without mocks): the call then goes to
   * its provider as usual. Throws the 422s and the 503 described above.
   */
  async answer(call: MockedCall): Promise<{ response: unknown } | null> {
    if (call.tenant.environment !== 'test' || call.sessionId === null) return null;
    const sessionId = call.sessionId;
    const found: MockTake = await this.store(() => this.repo.take(sessionId, call.tool));
    if (found.taken) return { response: found.taken.response };
    if (!found.sessionHasMocks) return null;
    if (found.toolHasMocks) {
      throw new AppError(
        'mocks_exhausted',
        `Every mock of ${call.tool} in this session is used up; define more with POST /v1/sessions/{id}/mocks.`,
        {
          tool: call.tool,
        },
      );
    }
    throw new AppError(
      'tool_not_mocked',
      `This session has mocks, none of them for ${call.tool}; its raw tools answer only from mocks.`,
      { tool: call.tool },
    );
  }

  /**
   * The tool as execute would resolve it: an acting meta-tool by its name,
   * a raw tool among the session's providers as `server/tool`, `server.tool`
   * or `SERVER_TOOL`, the longest server id first; a name two providers
   * could mean is refused rather than guessed.
   */
  private async resolve(name: string, servers: string[], projectId: string): Promise<string> {
    if (isActingMetaTool(name)) return name;
    if (name === LIST_TOOLS_TOOL || isMetaToolName(name)) {
      throw invalidTool(
        `${name} reads or connects and is never mocked; mocks stand in for raw server/tool calls and acting meta-tools.`,
      );
    }
    let found: { rank: number; name: string } | null = null;
    for (const c of callableCandidates(name, servers)) {
      if (found && c.rank < found.rank) break;
      const tool = await this.catalog.findTool(c.server, c.tool, projectId);
      if (!tool) continue;
      const callable = `${tool.serverId}/${tool.toolName}`;
      if (found) throw invalidTool(`"${name}" could mean ${found.name} or ${callable}; name it as server/tool.`);
      found = { rank: c.rank, name: callable };
    }
    if (!found) throw invalidTool(`No raw catalog tool of this session's providers is called "${name}".`);
    return found.name;
  }

  /** A mocks store operation; its failure is `mocks_engine_error`, logged with the cause. */
  private async store<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      this.log.error({ err }, 'mocks store unreadable; refusing the request');
      throw new AppError(
        'mocks_engine_error',
        'The mocks store is unavailable; nothing was done and nothing was sent to any provider.',
      );
    }
  }
}
