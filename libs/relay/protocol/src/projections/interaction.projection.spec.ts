import { INTERACTION, REQUEST, SENTINEL, THREAD, TURN, userInputForm, WORKSPACE } from '../../test/support/sample-frames';
import { interactionTerminal, projectInteractionRequest } from './interaction.projection';

const identity = { workspaceId: WORKSPACE, relaySequence: 4, interactionId: INTERACTION, threadId: THREAD, turnId: TURN, expiresAt: '2026-11-30T10:05:00Z' };

describe('interaction frames', () => {
  it('project an approval to its identity and explanation only', () => {
    const verdict = projectInteractionRequest('1.2', identity, {
      method: 'approval.request',
      approval: { id: REQUEST, agentName: 'agent', toolName: 'deploy', preview: { explanation: 'Ship it', input: SENTINEL } },
    });
    expect(verdict).toEqual({
      ok: true,
      value: { type: 'interaction.request', ...identity, sensitivity: 'normal', method: 'approval.request', projection: { approvalId: REQUEST, agentName: 'agent', toolName: 'deploy', explanation: 'Ship it' } },
    });
  });

  it('reduce a form to the fields each control type defines', () => {
    const form = userInputForm() as any;
    form.secret = SENTINEL;
    form.controls[0].defaultValue = SENTINEL;
    form.controls[0].options[0].internal = SENTINEL;
    const verdict = projectInteractionRequest('1.1', identity, { method: 'userInput.request', form });
    expect(verdict.ok).toBe(true);
    expect(JSON.stringify(verdict)).not.toContain(SENTINEL);
  });

  it('refuse forms that break the form rules, local-only kinds and non-normal sensitivity', () => {
    const duplicate = userInputForm() as any;
    duplicate.controls[1].id = 'region';
    expect(projectInteractionRequest('1.2', identity, { method: 'userInput.request', form: duplicate }).ok).toBe(false);
    expect(projectInteractionRequest('1.2', identity, { method: 'authentication.request' }).ok).toBe(false);
    expect(projectInteractionRequest('1.2', identity, { method: 'filePicker.request' }).ok).toBe(false);
    expect(
      projectInteractionRequest('1.2', identity, {
        method: 'approval.request',
        sensitivity: 'secret',
        approval: { id: REQUEST, agentName: 'a', toolName: 't', preview: null },
      }).ok,
    ).toBe(false);
    expect(projectInteractionRequest('1.2', identity, { method: 'userInput.request', form: { controls: 'none' } }).ok).toBe(false);
  });

  it('end with identity and method, nothing more', () => {
    const { expiresAt: _expiresAt, ...terminalIdentity } = identity;
    expect(interactionTerminal('cancelled', terminalIdentity, 'userInput.request')).toEqual({
      type: 'interaction.cancelled',
      workspaceId: WORKSPACE,
      relaySequence: 4,
      interactionId: INTERACTION,
      threadId: THREAD,
      turnId: TURN,
      method: 'userInput.request',
    });
  });
});
