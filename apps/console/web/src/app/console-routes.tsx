/**
 * The console's routes. Every page is its own lazy chunk, so the first load carries only the shell and the
 * sign-in page; the charts library arrives with `/platform`, the relay client with a workspace.
 */
import { lazy } from 'react';
import { Navigate, Route, Routes } from 'react-router';

import SignInPage from '../session/sign-in.page';
import { ConsoleShell } from './console-shell';
import NotFoundPage from './not-found.page';

const WorkspacesPage = lazy(() => import('../workspaces/workspaces.page'));
const WorkspacePage = lazy(() => import('../workspaces/workspace.page'));
const CasesPage = lazy(() => import('../shield/cases.page'));
const CasePage = lazy(() => import('../shield/case.page'));
const NewCasePage = lazy(() => import('../shield/new-case.page'));
const SearchPage = lazy(() => import('../registry/search.page'));
const CardPage = lazy(() => import('../registry/card.page'));
const PublishPage = lazy(() => import('../registry/publish.page'));
const NamespacesPage = lazy(() => import('../registry/namespaces.page'));
const PlatformPage = lazy(() => import('../platform/platform.page'));

export function ConsoleRoutes() {
  return (
    <Routes>
      <Route path="/sign-in" element={<SignInPage />} />
      <Route element={<ConsoleShell />}>
        <Route index element={<Navigate to="/workspaces" replace />} />
        <Route path="/workspaces" element={<WorkspacesPage />} />
        <Route path="/workspaces/:workspaceId" element={<WorkspacePage />} />
        <Route path="/shield" element={<CasesPage />} />
        <Route path="/shield/new" element={<NewCasePage />} />
        <Route path="/shield/cases/:caseId" element={<CasePage />} />
        <Route path="/registry" element={<SearchPage />} />
        <Route path="/registry/cards/:identifier" element={<CardPage />} />
        <Route path="/registry/publish" element={<PublishPage />} />
        <Route path="/registry/namespaces" element={<NamespacesPage />} />
        <Route path="/platform" element={<PlatformPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
